import { FinishedJobStatus, JobStatus } from '../../../interfaces/job-info.interface';
import { RetentionRule } from '../../queue-storage.interface';
import { PostgresContext, ms, perSchema } from './postgres-sql-fragments';

const sql = perSchema(({ T }) => ({
  // Deletes, in one bounded statement, the finished jobs of one queue and status that fall outside the
  // newest maxCount or finished before a cutoff; a NULL bound matches nothing. A flow child whose parent has not
  // finished is kept: the parent reads its result when it runs.
  applyRetention: `DELETE FROM ${T} WHERE id IN (
        SELECT id FROM (
          SELECT id, finished_at, row_number() OVER (ORDER BY finished_at DESC, id DESC) AS rank
          FROM ${T} WHERE queue = $1 AND status = $2 AND status IN ('completed', 'failed', 'cancelled')
        ) AS finished
        WHERE (finished.finished_at < $3 OR finished.rank > $4)
          AND NOT EXISTS (SELECT 1 FROM ${T} AS child JOIN ${T} AS parent ON parent.id = child.parent_id
            WHERE child.id = finished.id AND parent.status IN ('pending', 'running'))
        LIMIT $5
      )`,

  clean: `DELETE FROM ${T}
      WHERE queue = $1 AND COALESCE(finished_at, created_at) < $2 AND status = ANY($3::text[])`,
}));

/** Applies a retention rule to one queue's finished jobs of one status, deleting at most `limit`. */
export function applyRetention(
  db: PostgresContext,
  queue: string,
  status: FinishedJobStatus,
  rule: RetentionRule,
  limit: number,
): Promise<number> {
  // NULL disables a bound: nothing is older than NULL, and no rank exceeds it.
  const finishedBefore = rule.finishedBefore === undefined ? null : ms(rule.finishedBefore);
  return db.runner.run(sql(db.tables).applyRetention, [queue, status, finishedBefore, rule.maxCount ?? null, limit]);
}

/** Deletes a queue's jobs of these statuses finished (or, for pending, created) before `before`. */
export function cleanJobs(db: PostgresContext, queue: string, statuses: JobStatus[], before: number): Promise<number> {
  if (statuses.length === 0) return Promise.resolve(0);
  return db.runner.run(sql(db.tables).clean, [queue, ms(before), statuses]);
}
