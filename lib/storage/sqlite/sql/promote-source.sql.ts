/**
 * The reads `promote` makes of the SQLite file it copies (opened read-only, in one read transaction). Columns are
 * read from the file's own schema (`PRAGMA table_info`), never listed here: a column a later step adds is copied
 * without a change to this file.
 */
import { MIGRATIONS_TABLE, PROCESSES_TABLE } from '../../../table-names.constants';
import { StorageRow } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/** Past this, a JavaScript number no longer holds a SQLite integer exactly (a waiting flow parent's run_at is 1e18 + ms). */
const SAFE = Number.MAX_SAFE_INTEGER;

/** Whether the file has the table. */
export async function sqliteTableExists(runner: StatementRunner, table: string): Promise<boolean> {
  return (await runner.all(`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?`, [table])).length > 0;
}

/** The highest schema version the file records (0 when none). */
export async function recordedSqliteVersion(runner: StatementRunner): Promise<number> {
  if (!(await sqliteTableExists(runner, MIGRATIONS_TABLE))) return 0;
  const [row] = await runner.all(`SELECT coalesce(max(version), 0) AS version FROM ${MIGRATIONS_TABLE}`, []);
  return Number(row.version);
}

/** A table's column names, in table order. The name is one of ours (a constant), never input. */
export async function sqliteColumns(runner: StatementRunner, table: string): Promise<string[]> {
  return (await runner.all(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, [table])).map((row) => String(row.name));
}

/** Running jobs whose lease is still live at `now`, per holder: who to stop before a copy. */
export async function liveLeaseHolders(runner: StatementRunner, now: number): Promise<{ holder: string; jobs: number; queues: string }[]> {
  const rows = await runner.all(
    `SELECT coalesce(locked_by, '(no holder)') AS holder, count(*) AS jobs, group_concat(DISTINCT queue) AS queues
     FROM ${T} WHERE status = 'running' AND lease_until > ? GROUP BY locked_by ORDER BY locked_by`,
    [now],
  );
  return rows.map((row) => ({ holder: String(row.holder), jobs: Number(row.jobs), queues: String(row.queues) }));
}

/**
 * Processes whose announcement in the file's processes table still holds at `now` and that did not stop: processes
 * that may still add or finish jobs while a copy is read. Empty when the table does not exist (an older schema).
 */
export async function liveProcesses(runner: StatementRunner, now: number): Promise<{ workerId: string; queues: string; until: number }[]> {
  if (!(await sqliteTableExists(runner, PROCESSES_TABLE))) return [];
  const rows = await runner.all(
    `SELECT worker_id, group_concat(queue) AS queues, max(until) AS until FROM ${PROCESSES_TABLE}
     WHERE stopped_at IS NULL AND until >= ? GROUP BY worker_id ORDER BY worker_id`,
    [now],
  );
  return rows.map((row) => ({ workerId: String(row.worker_id), queues: String(row.queues), until: Number(row.until) }));
}

/** Rows of a table, `limit` at a time in rowid order after `afterRowid`; integers past 2^53 come back as text. */
export async function sqliteRowsAfter(
  runner: StatementRunner,
  table: string,
  columns: readonly string[],
  afterRowid: number,
  limit: number,
): Promise<{ rowid: number; row: StorageRow }[]> {
  const select = columns
    .map(
      (column) =>
        `CASE WHEN typeof("${column}") = 'integer' AND abs("${column}") > ${SAFE} THEN CAST("${column}" AS TEXT) ELSE "${column}" END AS "${column}"`,
    )
    .join(', ');
  const rows = await runner.all(`SELECT rowid AS "__rowid", ${select} FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ?`, [
    afterRowid,
    limit,
  ]);
  return rows.map(({ __rowid, ...row }) => ({ rowid: Number(__rowid), row }));
}

/** How many rows a table has. */
export async function sqliteRowCount(runner: StatementRunner, table: string): Promise<number> {
  const [row] = await runner.all(`SELECT count(*) AS n FROM "${table}"`, []);
  return Number(row.n);
}

/** Jobs per queue and status, as `queue status` → count. */
export async function sqliteJobCounts(runner: StatementRunner): Promise<Map<string, number>> {
  const rows = await runner.all(`SELECT queue, status, count(*) AS n FROM ${T} GROUP BY queue, status`, []);
  return new Map(rows.map((row) => [`${String(row.queue)} ${String(row.status)}`, Number(row.n)]));
}

/** Lowest and highest job id, and the highest id ever handed out (AUTOINCREMENT's sequence, above deleted jobs). */
export async function sqliteIdRange(runner: StatementRunner): Promise<{ min: number; max: number; sequence: number }> {
  const [range] = await runner.all(`SELECT coalesce(min(id), 0) AS min, coalesce(max(id), 0) AS max FROM ${T}`, []);
  const [sequence] = await runner.all(`SELECT coalesce(max(seq), 0) AS seq FROM sqlite_sequence WHERE name = ?`, [T]);
  return { min: Number(range.min), max: Number(range.max), sequence: Math.max(Number(sequence?.seq ?? 0), Number(range.max)) };
}
