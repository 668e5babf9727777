import { OldestDueRow } from '../../queue-storage.interface';
import { queuesOf, toOldestDueRow } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { pendingQueuesCte } from '../../shared/loose-index-scan';
import { Q, T } from './sqlite-sql-fragments';

/**
 * One statement for all of a process's queues: each gets `processor_until`, never moved back (another process with
 * a longer announcement keeps its own). A queue row made here is unpaused, as a queue without a row is.
 */
const ANNOUNCE_SQL = `INSERT INTO ${Q} (queue, paused, updated_at, processor_until)
  SELECT value, 0, ?, ? FROM json_each(?) WHERE true
  ON CONFLICT (queue) DO UPDATE SET processor_until = max(COALESCE(processor_until, 0), excluded.processor_until)`;

const PROCESSED_SQL = `SELECT queue FROM ${Q} WHERE processor_until > ?`;

/**
 * Per queue that no live announcement covers, a pending job due by then: the first in claim order. The queues with
 * pending jobs come from a loose index scan (see loose-index-scan.ts), at boot
 * and every announcement period.
 */
const UNPROCESSED_SQL = `WITH RECURSIVE ${pendingQueuesCte(T)}
  SELECT queue, run_at FROM (
    SELECT queue, (SELECT run_at FROM ${T} AS due WHERE due.queue = pending_queue.queue AND due.status = 'pending' AND due.run_at <= ?
        ORDER BY due.priority DESC, due.run_at, due.id LIMIT 1) AS run_at
    FROM pending_queue
    WHERE queue IS NOT NULL AND queue NOT IN (SELECT queue FROM ${Q} WHERE processor_until > ?)
  ) WHERE run_at IS NOT NULL`;

/** Announces that this process has processors for `queues` until `until`. */
export async function announceProcessors(runner: StatementRunner, queues: string[], until: number, now: number): Promise<void> {
  await runner.run(ANNOUNCE_SQL, [now, until, JSON.stringify(queues)]);
}

/** Queues some process announced a processor for, still valid at `now`. */
export async function processedQueues(runner: StatementRunner, now: number): Promise<string[]> {
  return queuesOf(await runner.all(PROCESSED_SQL, [now]));
}

/** Queues with pending jobs due by `dueBy` and no live processor announcement at `now`, each with one such job's due time. */
export async function unprocessedQueues(runner: StatementRunner, dueBy: number, now: number): Promise<OldestDueRow[]> {
  return (await runner.all(UNPROCESSED_SQL, [dueBy, now])).map(toOldestDueRow);
}
