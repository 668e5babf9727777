/**
 * The SQLite schema, in one place: the numbered migrations of `migrations/`, applied once each and recorded in
 * the migrations table, and the check at boot that the tables are this library's and not newer than it knows.
 * `applySqliteSchema` is the one entry point.
 */
import { ForeignSchemaError, SchemaOutdatedError, SchemaTooNewError } from '../../errors';
import { Logger } from '@nestjs/common';
import { MIGRATIONS_TABLE } from '../../table-names.constants';
import { MODULE_DEFAULTS } from '../../module-defaults.constants';
import { MigrationLockWait } from '../shared/migration-lock';
import { FoundSchema, QueueSchemaMigration, SchemaMigration, latestVersion, readMigrationRecord } from '../shared/schema-migration';
import { StatementRunner } from '../shared/statement-runner';
import { SQLITE_MIGRATIONS } from './migrations';
import { beginMigrationTransaction } from './sqlite-migration-lock';
import { SQLITE_QUEUE_TABLES, sqliteShapeVersion } from './sqlite-schema-shape';

/** How boot waits for the migration lock when no caller says: the module's default, logged as the module logs. */
function defaultWait(): MigrationLockWait {
  return { timeoutMs: MODULE_DEFAULTS.migrationLockTimeout, target: 'the SQLite database', logger: new Logger('JobQueue') };
}

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

const TABLES_SQL = `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ${SQLITE_QUEUE_TABLES.map(() => '?').join(', ')})`;
const RECORDED_VERSIONS_SQL = `SELECT version FROM ${MIGRATIONS_TABLE}`;

/**
 * Brings the schema to the newest version, or with `migrate` false only checks that it is there. Throws
 * `SchemaTooNewError` for a schema a newer build migrated, `ForeignSchemaError` for queue tables this library
 * did not make, `SchemaOutdatedError` when `migrate` is false and a step is missing. A database at the newest,
 * recorded version costs a few reads and no write lock; otherwise the check is repeated and the steps applied
 * under BEGIN IMMEDIATE, so processes booting together apply each step once (the second waits, up to
 * `wait.timeoutMs`, then finds it done).
 */
export async function applySqliteSchema(runner: StatementRunner, migrate = true, wait: MigrationLockWait = defaultWait()): Promise<void> {
  const found = await findSchemaInOneSnapshot(runner);
  if (found.version === SQLITE_SCHEMA_VERSION && found.recorded) return;
  if (!migrate) {
    if (found.version < SQLITE_SCHEMA_VERSION) throw new SchemaOutdatedError(found.version, SQLITE_SCHEMA_VERSION);
    return;
  }
  await beginMigrationTransaction(runner, wait);
  try {
    const locked = await findSchema(runner);
    if (!(locked.version === SQLITE_SCHEMA_VERSION && locked.recorded)) {
      await runner.run(CREATE_MIGRATIONS_TABLE_SQL, []);
      // Steps the tables show done whose record is missing (an older build's database, or rows deleted by hand).
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

/**
 * The version the database is at. A migrations table that records the newest version is trusted as it is (the
 * cheap path of every boot). Below that, the tables' shape is read too: a step they show done is adopted (recorded,
 * not run again), whether the versions were never recorded (0.1.0) or were deleted by hand. With no usable record,
 * a shape of no version is another application's table; with one, the record is trusted as before.
 */
async function findSchema(runner: StatementRunner): Promise<FoundSchema> {
  const found = (await runner.all(TABLES_SQL, [MIGRATIONS_TABLE, ...SQLITE_QUEUE_TABLES])).map((row) => String(row.name));
  const tables = found.filter((table) => table !== MIGRATIONS_TABLE);
  const hasRecord = found.includes(MIGRATIONS_TABLE);
  const record = hasRecord ? readMigrationRecord((await runner.all(RECORDED_VERSIONS_SQL, [])).map((row) => row.version)) : undefined;
  if (record && record.highest > SQLITE_SCHEMA_VERSION) throw new SchemaTooNewError(record.highest, SQLITE_SCHEMA_VERSION);
  const recorded = record?.version ?? 0;
  if (recorded === SQLITE_SCHEMA_VERSION || tables.length === 0) return { version: recorded, recorded: true };
  const shape = await sqliteShapeVersion(runner, tables);
  if ('version' in shape)
    return shape.version > recorded ? { version: shape.version, recorded: false } : { version: recorded, recorded: true };
  if (recorded > 0) return { version: recorded, recorded: true };
  throw new ForeignSchemaError(shape.table, shape.difference, hasRecord ? `${MIGRATIONS_TABLE} records no version` : undefined);
}
