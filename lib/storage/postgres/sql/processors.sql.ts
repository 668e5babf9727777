import { OldestDueRow } from '../../queue-storage.interface';
import { queuesOf, toOldestDueRow } from '../../shared/job-row.mapper';
import { unprocessedQueuesSql } from '../../shared/loose-index-scan';
import { PostgresContext, ms, perSchema } from './postgres-sql-fragments';

const sql = perSchema(({ T, Q }) => ({
  /**
   * One statement for all of a process's queues: each gets `processor_until`, never moved back (another process with
   * a longer announcement keeps its own). A queue row made here is unpaused, as a queue without a row is.
   */
  announce: `INSERT INTO ${Q} (queue, paused, updated_at, processor_until)
      SELECT queue, false, $1, $2 FROM unnest($3::text[]) AS queue
      ON CONFLICT (queue) DO UPDATE SET processor_until = GREATEST(COALESCE(${Q}.processor_until, 0), excluded.processor_until)`,

  processed: `SELECT queue FROM ${Q} WHERE processor_until > $1`,

  unprocessed: unprocessedQueuesSql(T, Q, '$1', '$2'),
}));

/** Announces that this process has processors for `queues` until `until`. */
export async function announceProcessors(db: PostgresContext, queues: string[], until: number, now: number): Promise<void> {
  // Sorted: two processes announcing overlapping queue sets lock the rows in one order, never in a deadlock.
  await db.runner.run(sql(db.tables).announce, [ms(now), ms(until), [...queues].sort()]);
}

/** Queues some process announced a processor for, still valid at `now`. */
export async function processedQueues(db: PostgresContext, now: number): Promise<string[]> {
  return queuesOf(await db.runner.all(sql(db.tables).processed, [ms(now)]));
}

/** Queues with pending jobs due by `dueBy` and no live processor announcement at `now`, with their oldest such job. */
export async function unprocessedQueues(db: PostgresContext, dueBy: number, now: number): Promise<OldestDueRow[]> {
  return (await db.runner.all(sql(db.tables).unprocessed, [ms(dueBy), ms(now)])).map(toOldestDueRow);
}
