import { PROCESSES_TABLE } from '../../../table-names.constants';
import { ProcessAnnouncement, ProcessRow } from '../../queue-storage.interface';
import { toProcessRow } from '../../shared/job-row.mapper';
import { PostgresContext, ms, perSchema } from './postgres-sql-fragments';

const sql = perSchema(({ T }) => {
  const P = T.replace(/[^.]+$/, PROCESSES_TABLE);
  return {
    /**
     * One statement: forgets other processes' rows ended before $5 and this worker id's rows of queues it no longer
     * processes, and upserts one row per processor. The two never touch the same row (the delete spares the queues
     * the insert writes), which a data-modifying CTE requires.
     */
    announce: `WITH forgotten AS (
        DELETE FROM ${P} WHERE (until < $5 AND worker_id <> $1) OR (worker_id = $1 AND NOT (queue = ANY($6::text[])))
      )
      INSERT INTO ${P} (worker_id, queue, concurrency, started_at, seen_at, until, stopped_at)
      SELECT $1, x.queue, x.concurrency, $2, $3, $4, NULL FROM unnest($6::text[], $7::int[]) AS x(queue, concurrency)
      ON CONFLICT (worker_id, queue) DO UPDATE SET concurrency = excluded.concurrency, started_at = excluded.started_at,
        seen_at = excluded.seen_at, until = excluded.until, stopped_at = NULL`,

    end: `UPDATE ${P} SET stopped_at = $1, until = LEAST(until, $1) WHERE worker_id = $2 AND started_at = $3`,

    rows: `SELECT worker_id, queue, concurrency, started_at, seen_at, until, stopped_at FROM ${P}
      WHERE until >= $1 ORDER BY worker_id, queue`,
  };
});

/** Records the process's processors until `announcement.until`, and forgets rows ended before `forgetBefore`. */
export async function announceProcess(
  db: PostgresContext,
  announcement: ProcessAnnouncement,
  now: number,
  forgetBefore: number,
): Promise<void> {
  const { workerId, startedAt, until } = announcement;
  // Sorted: two lives of one worker id announcing at once lock its rows in one order, never in a deadlock.
  const processors = [...announcement.processors].sort((a, b) => (a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0));
  await db.runner.run(sql(db.tables).announce, [
    workerId,
    ms(startedAt),
    ms(now),
    ms(until),
    ms(forgetBefore),
    processors.map((p) => p.queue),
    processors.map((p) => p.concurrency),
  ]);
}

/** Ends the rows of one life of a process: stopped at `now`. */
export async function endProcess(db: PostgresContext, workerId: string, startedAt: number, now: number): Promise<void> {
  await db.runner.run(sql(db.tables).end, [ms(now), workerId, ms(startedAt)]);
}

/** The rows whose announcement holds at `since` or later. */
export async function processRows(db: PostgresContext, since: number): Promise<ProcessRow[]> {
  return (await db.runner.all(sql(db.tables).rows, [ms(since)])).map(toProcessRow);
}
