/**
 * The statements `promote` runs in the PostgreSQL schema it fills, all inside its one transaction. Columns are read
 * from the schema's catalog, never listed here, and rows go in through `json_populate_recordset`, which casts each
 * JSON value to its column's type: a column a later step adds is copied without a change to this file.
 */
import { JOBS_TABLE, MIGRATIONS_TABLE } from '../../../table-names.constants';
import { StorageRow } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';

/** Waits for the schema's migration lock, the one booting processes take, until the transaction ends. */
export async function lockSchemaForPromote(runner: StatementRunner, schema: string): Promise<void> {
  await runner.all(`SELECT pg_advisory_xact_lock(hashtext('nest-queue-schema:' || $1)) AS locked`, [schema]);
}

/** Whether the schema has the table. */
export async function postgresTableExists(runner: StatementRunner, schema: string, table: string): Promise<boolean> {
  const [row] = await runner.all(`SELECT to_regclass($1) IS NOT NULL AS found`, [`"${schema}".${table}`]);
  return row.found === true;
}

/** The highest schema version the schema records (0 when none). */
export async function recordedPostgresVersion(runner: StatementRunner, schema: string): Promise<number> {
  if (!(await postgresTableExists(runner, schema, MIGRATIONS_TABLE))) return 0;
  const [row] = await runner.all(`SELECT coalesce(max(version), 0) AS version FROM "${schema}".${MIGRATIONS_TABLE}`, []);
  return Number(row.version);
}

/** Whether the schema's jobs table holds any row. */
export async function postgresHasJobs(runner: StatementRunner, schema: string): Promise<boolean> {
  if (!(await postgresTableExists(runner, schema, JOBS_TABLE))) return false;
  return (await runner.all(`SELECT 1 AS found FROM "${schema}".${JOBS_TABLE} LIMIT 1`, [])).length > 0;
}

/** A table's column names, in table order. */
export async function postgresColumns(runner: StatementRunner, schema: string, table: string): Promise<string[]> {
  const rows = await runner.all(
    `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [schema, table],
  );
  return rows.map((row) => String(row.name));
}

/** Empties a table (queue state and schedules: the copy's replace whatever a process on the server wrote before). */
export async function emptyPostgresTable(runner: StatementRunner, schema: string, table: string): Promise<void> {
  await runner.run(`DELETE FROM "${schema}".${table}`, []);
}

/** Inserts rows, each an object of column → value, converted to the columns' types by the server; ids are kept. */
export async function insertPostgresRows(
  runner: StatementRunner,
  schema: string,
  table: string,
  columns: readonly string[],
  rows: StorageRow[],
): Promise<void> {
  const list = columns.map((column) => `"${column}"`).join(', ');
  // OVERRIDING SYSTEM VALUE: the jobs id is an identity column; the copy keeps the file's ids.
  const overriding = table === JOBS_TABLE ? ' OVERRIDING SYSTEM VALUE' : '';
  await runner.run(
    `INSERT INTO "${schema}".${table} (${list})${overriding} SELECT ${list} FROM json_populate_recordset(NULL::"${schema}".${table}, $1::json)`,
    [JSON.stringify(rows)],
  );
}

/** Moves the jobs id sequence so the next job gets `highest + 1`: new ids follow the copied ones. */
export async function raiseJobIdSequence(runner: StatementRunner, schema: string, highest: number): Promise<void> {
  if (highest < 1) return;
  await runner.all(`SELECT setval(pg_get_serial_sequence($1, 'id'), $2::bigint, true) AS value`, [`"${schema}".${JOBS_TABLE}`, highest]);
}

/** Jobs per queue and status, as `queue status` → count. */
export async function postgresJobCounts(runner: StatementRunner, schema: string): Promise<Map<string, number>> {
  const rows = await runner.all(`SELECT queue, status, count(*) AS n FROM "${schema}".${JOBS_TABLE} GROUP BY queue, status`, []);
  return new Map(rows.map((row) => [`${String(row.queue)} ${String(row.status)}`, Number(row.n)]));
}

/** Lowest and highest job id. */
export async function postgresIdRange(runner: StatementRunner, schema: string): Promise<{ min: number; max: number }> {
  const [row] = await runner.all(`SELECT coalesce(min(id), 0) AS min, coalesce(max(id), 0) AS max FROM "${schema}".${JOBS_TABLE}`, []);
  return { min: Number(row.min), max: Number(row.max) };
}

/** How many rows a table has. */
export async function postgresRowCount(runner: StatementRunner, schema: string, table: string): Promise<number> {
  const [row] = await runner.all(`SELECT count(*) AS n FROM "${schema}".${table}`, []);
  return Number(row.n);
}
