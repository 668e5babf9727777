import { FinishedJobStatus, JobStatus } from '../../../interfaces/job-info.interface';
import { RetentionRule } from '../../queue-storage.interface';
import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/** A flow child whose parent has not finished yet is kept: the parent reads its result when it runs. */
const KEPT_FOR_PARENT = `(parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM ${T} AS parent
    WHERE parent.id = ${T}.parent_id AND parent.status IN ('pending', 'running')))`;

/**
 * Deletes, in one bounded statement, the finished jobs of one queue and status that fall outside the
 * newest `keep` or finished before a cutoff, except flow children their parent still needs.
 */
const APPLY_RETENTION_SQL = `DELETE FROM ${T} WHERE id IN (
  SELECT id FROM ${T} WHERE queue = ? AND status = ? AND finished_at IS NOT NULL AND (
    finished_at < ?
    OR id NOT IN (SELECT id FROM ${T} WHERE queue = ? AND status = ? AND finished_at IS NOT NULL ORDER BY finished_at DESC, id DESC LIMIT ?)
  ) AND ${KEPT_FOR_PARENT} LIMIT ?)`;

/** Finished jobs by finish time, pending ones by creation time, each through its own index. */
const CLEAN_SQL = `DELETE FROM ${T} WHERE id IN (
  SELECT id FROM ${T} WHERE queue = ? AND finished_at IS NOT NULL AND finished_at < ? AND status IN (SELECT value FROM json_each(?))
  UNION ALL
  SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND created_at < ? AND 'pending' IN (SELECT value FROM json_each(?)))`;

/** Applies a retention rule to one queue's finished jobs of one status, deleting at most `limit`. */
export function applyRetention(
  runner: StatementRunner,
  queue: string,
  status: FinishedJobStatus,
  rule: RetentionRule,
  limit: number,
): Promise<number> {
  // -1 disables a bound: nothing finished before -1, and LIMIT -1 keeps everything.
  return runner.run(APPLY_RETENTION_SQL, [queue, status, rule.finishedBefore ?? -1, queue, status, rule.maxCount ?? -1, limit]);
}

/** Deletes a queue's jobs of these statuses finished (or, for pending, created) before `before`. */
export function cleanJobs(runner: StatementRunner, queue: string, statuses: JobStatus[], before: number): Promise<number> {
  const json = JSON.stringify(statuses);
  return runner.run(CLEAN_SQL, [queue, before, json, queue, before, json]);
}
