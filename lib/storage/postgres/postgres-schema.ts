/**
 * The PostgreSQL schema, in one place: the numbered migrations of `migrations/`, applied once each and recorded
 * in the migrations table, and the check at boot that the tables are this library's and not newer than it knows.
 * `applyPostgresSchema` is the one entry point; `getPostgresMigrations` and `getPostgresSchemaSql` are public, for
 * users who run migrations themselves.
 */
import { Logger } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { ForeignSchemaError, SchemaOutdatedError, SchemaTooNewError } from '../../errors';
import { JOBS_TABLE, MIGRATIONS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../../table-names.constants';
import { MODULE_DEFAULTS } from '../../module-defaults.constants';
import { MigrationLockWait } from '../shared/migration-lock';
import { takeSchemaLock } from './postgres-migration-lock';
import {
  FoundSchema,
  KNOWN_COLUMNS,
  QueueSchemaMigration,
  columnDifference,
  latestVersion,
  readMigrationRecord,
} from '../shared/schema-migration';
import { StatementRunner } from '../shared/statement-runner';
import { POSTGRES_MIGRATIONS } from './migrations';
import { PostgresMigration } from './migrations/postgres-migration';

/** Schema the PostgreSQL backend uses when none is configured. */
export const DEFAULT_POSTGRES_SCHEMA = 'nest_queue';

/**
 * Schema names the backend accepts: a plain identifier, so it can be embedded in SQL (always double-quoted,
 * which keeps its case) and in the notification channel name, with room left for the channel suffix.
 */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,49}$/;

/** Returns why `schema` cannot be used as the queue's schema name, or null when it can. */
export function postgresSchemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    return 'must be an identifier of letters, digits and underscores, starting with a letter or underscore, at most 50 characters';
  }
  return null;
}

/** The newest PostgreSQL schema version this build knows. */
export const POSTGRES_SCHEMA_VERSION = latestVersion(POSTGRES_MIGRATIONS);

function quotedSchema(schema: string): string {
  const problem = postgresSchemaProblem(schema);
  if (problem) throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}: ${problem}`);
  return `"${schema}"`;
}

function createMigrationsTableSql(s: string): string {
  return `CREATE TABLE IF NOT EXISTS ${s}.${MIGRATIONS_TABLE} (
    version    integer PRIMARY KEY,
    name       text    NOT NULL,
    applied_at bigint  NOT NULL
  )`;
}

/** The row recording a step; a step run twice by hand records once. The values are our own constants. */
function recordSql(s: string, migration: PostgresMigration): string {
  return `INSERT INTO ${s}.${MIGRATIONS_TABLE} (version, name, applied_at)
  VALUES (${migration.version}, '${migration.name}', (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  ON CONFLICT (version) DO NOTHING`;
}

/**
 * A step as complete SQL: the schema and the migrations table (idempotent), the step's DDL in a block that runs
 * only when the step is not recorded (so the whole list can be run at every deploy without rebuilding an index
 * a later step replaced), and the row recording it.
 */
function stepSql(s: string, migration: PostgresMigration): string[] {
  const guarded = `DO $step$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM ${s}.${MIGRATIONS_TABLE} WHERE version = ${migration.version}) THEN
    ${migration.statements(s).join(';\n    ')};
  END IF;
END $step$`;
  return [`CREATE SCHEMA IF NOT EXISTS ${s}`, createMigrationsTableSql(s), guarded, recordSql(s, migration)];
}

/** Every PostgreSQL step for `schema` as complete SQL (see `stepSql`), for users who run migrations themselves. */
export function getPostgresMigrations(schema: string = DEFAULT_POSTGRES_SCHEMA): QueueSchemaMigration[] {
  const s = quotedSchema(schema);
  return POSTGRES_MIGRATIONS.map((migration) => ({
    version: migration.version,
    name: migration.name,
    sql: stepSql(s, migration),
  }));
}

/**
 * Every statement of every migration, in order, for users who run migrations themselves (then set
 * `postgres.createSchema: false`). Each statement is idempotent, so the list can be run at every deploy; running
 * it also records the versions, which boot checks. `getMigrations('postgres')` gives the same per version.
 */
export function getPostgresSchemaSql(schema: string = DEFAULT_POSTGRES_SCHEMA): string[] {
  return getPostgresMigrations(schema).flatMap((migration) => migration.sql);
}

/** Is each of the library's tables (and the migrations table) in a schema? Params: schema, names[]. */
const TABLES_SQL = `SELECT c.relname AS name FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind IN ('r', 'p')`;

/** Columns of a table. Params: schema, table. */
const COLUMNS_SQL = `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`;

/** Indexes of a table with their definitions. Params: schema, table. */
const INDEXES_SQL = `SELECT indexname AS name, indexdef AS definition FROM pg_catalog.pg_indexes WHERE schemaname = $1 AND tablename = $2`;

/**
 * Brings the schema to the newest version, or with `migrate` false only checks that it is there. Throws
 * `SchemaTooNewError` for a schema a newer build migrated, `ForeignSchemaError` for queue tables this library did
 * not make, `SchemaOutdatedError` when `migrate` is false and a step is missing. A schema at the newest, recorded
 * version costs a few reads and takes no lock, so a booting process takes no DDL lock on a busy table; otherwise
 * the check is repeated and the steps applied in one transaction under an advisory lock, so processes booting
 * together apply each step once (concurrent `CREATE ... IF NOT EXISTS` of one object can even fail in PostgreSQL);
 * a process waits for another's lock up to `wait.timeoutMs`.
 */
export async function applyPostgresSchema(
  dataSource: DataSource,
  runner: StatementRunner,
  schema: string,
  migrate: boolean,
  wait: MigrationLockWait = {
    timeoutMs: MODULE_DEFAULTS.migrationLockTimeout,
    target: `schema "${schema}"`,
    logger: new Logger('JobQueue:postgres'),
  },
): Promise<void> {
  // The unlocked check reads the catalog in several statements, each seeing the latest commit: another process's
  // migration committing between them shows a half-old, half-new shape (columns a 0.1.0 table never had, and no
  // migrations table yet), which is not an error of the schema. Only a clean result is trusted here; anything
  // else, its error included, is decided again under the lock, where no migration can commit in between.
  const found = await findSchema(runner, schema).catch(() => undefined);
  if (found?.version === POSTGRES_SCHEMA_VERSION && found.recorded) return;
  const queryRunner = dataSource.createQueryRunner('master');
  try {
    await queryRunner.startTransaction();
    await takeSchemaLock(queryRunner, schema, wait);
    await checkOrMigrateLocked(queryRunner, schema, migrate);
    await queryRunner.commitTransaction();
  } catch (error) {
    if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await queryRunner.release();
  }
}

async function checkOrMigrateLocked(queryRunner: QueryRunner, schema: string, migrate: boolean): Promise<void> {
  const locked = await findSchema(
    {
      all: (sql, params) => queryRunner.query(sql, params),
      run: async () => 0,
    },
    schema,
  );
  if (locked.version === POSTGRES_SCHEMA_VERSION && locked.recorded) return;
  if (!migrate) {
    if (locked.version < POSTGRES_SCHEMA_VERSION) throw new SchemaOutdatedError(locked.version, POSTGRES_SCHEMA_VERSION);
    return;
  }
  const s = quotedSchema(schema);
  if (!locked.recorded && locked.version > 0) {
    // A schema an unrecorded older build made: its steps are there already, only their record is missing.
    await queryRunner.query(createMigrationsTableSql(s));
    for (const migration of POSTGRES_MIGRATIONS.slice(0, locked.version)) await queryRunner.query(recordSql(s, migration));
  }
  for (const migration of POSTGRES_MIGRATIONS.slice(locked.version)) {
    for (const statement of stepSql(s, migration)) await queryRunner.query(statement);
  }
}

async function findSchema(runner: StatementRunner, schema: string): Promise<FoundSchema> {
  const rows = await runner.all(TABLES_SQL, [schema, [MIGRATIONS_TABLE, JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE]]);
  const tables = rows.map((row) => String(row.name));
  if (tables.includes(MIGRATIONS_TABLE)) {
    // Steps past the record's first gap run again (a table emptied or edited by hand): each is idempotent here.
    const rows = await runner.all(`SELECT version FROM "${schema}".${MIGRATIONS_TABLE}`, []);
    const record = readMigrationRecord(rows.map((row) => row.version));
    if (record.highest > POSTGRES_SCHEMA_VERSION) throw new SchemaTooNewError(record.highest, POSTGRES_SCHEMA_VERSION);
    return { version: record.version, recorded: true };
  }
  if (tables.length === 0) return { version: 0, recorded: false };
  return {
    version: await unrecordedVersion(runner, schema, tables),
    recorded: false,
  };
}

/**
 * Which version an older build (before versions were recorded) left, told by its shape; any other shape is not
 * ours. Columns must match exactly: a table with one more NOT NULL column would fail every insert.
 */
async function unrecordedVersion(runner: StatementRunner, schema: string, tables: string[]): Promise<number> {
  const expected: [string, readonly string[]][] = [
    [JOBS_TABLE, KNOWN_COLUMNS.jobs],
    [QUEUES_TABLE, KNOWN_COLUMNS.queues],
    [SCHEDULES_TABLE, KNOWN_COLUMNS.schedules],
  ];
  for (const [table, columns] of expected) {
    const name = `"${schema}".${table}`;
    if (!tables.includes(table)) throw new ForeignSchemaError(name, 'the table is missing beside the other queue tables');
    const found = (await runner.all(COLUMNS_SQL, [schema, table])).map((row) => String(row.name));
    const difference = columnDifference(found, columns);
    if (difference) throw new ForeignSchemaError(name, difference);
  }
  const indexes = new Map((await runner.all(INDEXES_SQL, [schema, JOBS_TABLE])).map((row) => [String(row.name), String(row.definition)]));
  const required = ['claim', 'running', 'status', 'schedule_key', 'unique_key'].map((suffix) => `${JOBS_TABLE}_${suffix}`);
  const missing = required.filter((index) => !indexes.has(index));
  if (missing.length > 0)
    throw new ForeignSchemaError(`"${schema}".${JOBS_TABLE}`, `missing index${missing.length > 1 ? 'es' : ''} ${missing.join(', ')}`);
  // Version 2 made the status index partial on finished rows.
  return / WHERE /i.test(indexes.get(`${JOBS_TABLE}_status`)!) ? 2 : 1;
}
