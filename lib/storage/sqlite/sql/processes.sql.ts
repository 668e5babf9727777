import { PROCESSES_TABLE } from '../../../table-names.constants';
import { ProcessAnnouncement, ProcessRow } from '../../queue-storage.interface';
import { toProcessRow } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';

const P = PROCESSES_TABLE;

/** One row per processor of the announcing process; a row of an earlier life of its worker id takes the new start. */
const ANNOUNCE_SQL = `INSERT INTO ${P} (worker_id, queue, concurrency, started_at, seen_at, until, stopped_at)
  SELECT ?, j.value ->> 0, j.value ->> 1, ?, ?, ?, NULL FROM json_each(?) AS j WHERE true
  ON CONFLICT (worker_id, queue) DO UPDATE SET concurrency = excluded.concurrency, started_at = excluded.started_at,
    seen_at = excluded.seen_at, until = excluded.until, stopped_at = NULL`;

/**
 * Other processes' rows ended long enough ago, and this worker id's rows of queues it no longer processes. Never
 * its own current rows: the announcement above keeps them.
 */
const FORGET_SQL = `DELETE FROM ${P}
  WHERE (until < ? AND worker_id <> ?) OR (worker_id = ? AND queue NOT IN (SELECT value FROM json_each(?)))`;

const END_SQL = `UPDATE ${P} SET stopped_at = ?, until = min(until, ?) WHERE worker_id = ? AND started_at = ?`;

const ROWS_SQL = `SELECT worker_id, queue, concurrency, started_at, seen_at, until, stopped_at FROM ${P}
  WHERE until >= ? ORDER BY worker_id, queue`;

/** Records the process's processors until `announcement.until`, and forgets rows ended before `forgetBefore`. */
export async function announceProcess(
  runner: StatementRunner,
  announcement: ProcessAnnouncement,
  now: number,
  forgetBefore: number,
): Promise<void> {
  const { workerId, startedAt, processors, until } = announcement;
  const rows = processors.map(({ queue, concurrency }) => [queue, concurrency]);
  await runner.run(ANNOUNCE_SQL, [workerId, startedAt, now, until, JSON.stringify(rows)]);
  await runner.run(FORGET_SQL, [forgetBefore, workerId, workerId, JSON.stringify(processors.map(({ queue }) => queue))]);
}

/** Ends the rows of one life of a process: stopped at `now`. */
export async function endProcess(runner: StatementRunner, workerId: string, startedAt: number, now: number): Promise<void> {
  await runner.run(END_SQL, [now, now, workerId, startedAt]);
}

/** The rows whose announcement holds at `since` or later. */
export async function processRows(runner: StatementRunner, since: number): Promise<ProcessRow[]> {
  return (await runner.all(ROWS_SQL, [since])).map(toProcessRow);
}
