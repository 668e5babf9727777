import { OldestDueRow } from '../../queue-storage.interface';
import { queuesOf, toOldestDueRow } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { unprocessedQueuesSql } from '../../shared/loose-index-scan';
import { Q, T } from './sqlite-sql-fragments';

/**
 * One statement for all of a process's queues: each gets `processor_until`, never moved back (another process with
 * a longer announcement keeps its own). A queue row made here is unpaused, as a queue without a row is.
 */
const ANNOUNCE_SQL = `INSERT INTO ${Q} (queue, paused, updated_at, processor_until)
  SELECT value, 0, ?, ? FROM json_each(?) WHERE true
  ON CONFLICT (queue) DO UPDATE SET processor_until = max(COALESCE(processor_until, 0), excluded.processor_until)`;

const PROCESSED_SQL = `SELECT queue FROM ${Q} WHERE processor_until > ?`;

const UNPROCESSED_SQL = unprocessedQueuesSql(T, Q, '?', '?');

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
