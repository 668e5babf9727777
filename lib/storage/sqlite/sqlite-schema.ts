/**
 * The SQLite schema, in one place: the numbered migrations of `migrations/`, applied once each and recorded in
 * the migrations table, and the check at boot that the tables are this library's and not newer than it knows.
 * `applySqliteSchema` is the one entry point.
 */
import { ForeignSchemaError, SchemaOutdatedError, SchemaTooNewError } from '../../errors';
import { JOBS_TABLE, MIGRATIONS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../../sqlite-queue.constants';
import {
  FoundSchema,
  KNOWN_COLUMNS,
  QueueSchemaMigration,
  SchemaMigration,
  columnDifference,
  latestVersion,
} from '../shared/schema-migration';
import { StatementRunner } from '../shared/statement-runner';
import { SQLITE_MIGRATIONS } from './migrations';

/** The newest SQLite schema version this build knows. */
export const SQLITE_SCHEMA_VERSION = latestVersion(SQLITE_MIGRATIONS);

const CREATE_MIGRATIONS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
  )`;

/** The row recording a step; OR IGNORE so a step run twice by hand records once. Values are our own constants. */
function recordSql(migration: SchemaMigration): string {
  return `INSERT OR IGNORE INTO ${MIGRATIONS_TABLE} (version, name, applied_at)
  VALUES (${migration.version}, '${migration.name}', CAST(strftime('%s', 'now') AS INTEGER) * 1000)`;
}

/** Every SQLite step as complete SQL: the step's DDL, the migrations table, the row recording the step. */
export function getSqliteMigrations(): QueueSchemaMigration[] {
  return SQLITE_MIGRATIONS.map((migration) => ({
    version: migration.version,
    name: migration.name,
    sql: [...migration.statements, CREATE_MIGRATIONS_TABLE_SQL, recordSql(migration)],
  }));
}

const TABLES_SQL = `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?)`;
const RECORDED_VERSION_SQL = `SELECT max(version) AS version FROM ${MIGRATIONS_TABLE}`;
const COLUMNS_SQL = `SELECT name FROM pragma_table_info(?)`;
const JOB_INDEXES_SQL = `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`;

/**
 * Brings the schema to the newest version, or with `migrate` false only checks that it is there. Throws
 * `SchemaTooNewError` for a schema a newer build migrated, `ForeignSchemaError` for queue tables this library
 * did not make, `SchemaOutdatedError` when `migrate` is false and a step is missing. A database at the newest,
 * recorded version costs a few reads and no write lock; otherwise the check is repeated and the steps applied
 * under BEGIN IMMEDIATE, so processes booting together apply each step once (the second waits, then finds it done).
 */
export async function applySqliteSchema(runner: StatementRunner, migrate = true): Promise<void> {
  const found = await findSchemaInOneSnapshot(runner);
  if (found.version === SQLITE_SCHEMA_VERSION && found.recorded) return;
  if (!migrate) {
    if (found.version < SQLITE_SCHEMA_VERSION) throw new SchemaOutdatedError(found.version, SQLITE_SCHEMA_VERSION);
    return;
  }
  await runner.run('BEGIN IMMEDIATE', []);
  try {
    const locked = await findSchema(runner);
    if (!(locked.version === SQLITE_SCHEMA_VERSION && locked.recorded)) {
      await runner.run(CREATE_MIGRATIONS_TABLE_SQL, []);
      // A database an unrecorded older build made: its steps are there already, only their record is missing.
      for (const migration of SQLITE_MIGRATIONS.slice(0, locked.recorded ? 0 : locked.version)) await runner.run(recordSql(migration), []);
      for (const migration of SQLITE_MIGRATIONS.slice(locked.version)) {
        for (const statement of migration.statements) await runner.run(statement, []);
        await runner.run(recordSql(migration), []);
      }
    }
    await runner.run('COMMIT', []);
  } catch (error) {
    await runner.run('ROLLBACK', []).catch(() => undefined);
    throw error;
  }
}

/**
 * The check reads several statements; outside a transaction each sees the latest commit, so another process's
 * migration committing between two of them would show a shape no version ever had (new columns, no migrations
 * table yet) and refuse a sound database. A read transaction keeps every read on one committed state.
 */
async function findSchemaInOneSnapshot(runner: StatementRunner): Promise<FoundSchema> {
  await runner.run('BEGIN', []);
  try {
    return await findSchema(runner);
  } finally {
    await runner.run('COMMIT', []);
  }
}

async function findSchema(runner: StatementRunner): Promise<FoundSchema> {
  const tables = (await runner.all(TABLES_SQL, [MIGRATIONS_TABLE, JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE])).map((row) =>
    String(row.name),
  );
  if (tables.includes(MIGRATIONS_TABLE)) {
    const [row] = await runner.all(RECORDED_VERSION_SQL, []);
    const version = Number(row?.version ?? 0);
    if (version > SQLITE_SCHEMA_VERSION) throw new SchemaTooNewError(version, SQLITE_SCHEMA_VERSION);
    return { version, recorded: true };
  }
  if (tables.length === 0) return { version: 0, recorded: false };
  return { version: await unrecordedVersion(runner, tables), recorded: false };
}

/**
 * Which version an older build (before versions were recorded) left, told by its shape; any other shape is not
 * ours. Columns must match exactly: a table with one more NOT NULL column would fail every insert.
 */
async function unrecordedVersion(runner: StatementRunner, tables: string[]): Promise<number> {
  const expected: [string, readonly string[]][] = [
    [JOBS_TABLE, KNOWN_COLUMNS.jobs],
    [QUEUES_TABLE, KNOWN_COLUMNS.queues],
    [SCHEDULES_TABLE, KNOWN_COLUMNS.schedules],
  ];
  for (const [table, columns] of expected) {
    if (!tables.includes(table)) throw new ForeignSchemaError(table, 'the table is missing beside the other queue tables');
    const found = (await runner.all(COLUMNS_SQL, [table])).map((row) => String(row.name));
    const difference = columnDifference(found, columns);
    if (difference) throw new ForeignSchemaError(table, difference);
  }
  const indexes = (await runner.all(JOB_INDEXES_SQL, [JOBS_TABLE])).map((row) => String(row.name));
  const required = ['claim', 'running', 'schedule_key', 'unique_key'].map((suffix) => `${JOBS_TABLE}_${suffix}`);
  const missing = required.filter((index) => !indexes.includes(index));
  if (missing.length > 0) throw new ForeignSchemaError(JOBS_TABLE, `missing index${missing.length > 1 ? 'es' : ''} ${missing.join(', ')}`);
  if (indexes.includes(`${JOBS_TABLE}_finished`)) return 2;
  if (indexes.includes(`${JOBS_TABLE}_status`)) return 1;
  throw new ForeignSchemaError(JOBS_TABLE, `neither index ${JOBS_TABLE}_status nor ${JOBS_TABLE}_finished`);
}
