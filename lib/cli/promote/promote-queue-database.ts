import { NotAQueueDatabaseError } from '../../errors/not-a-queue-database.error';
import { assertSqliteFilePath } from '../cli-database';
import { PromoteRefusedError } from '../../errors/promote-refused.error';
import { SchemaTooNewError } from '../../errors/schema-too-new.error';
import { SqliteDriverName } from '../../interfaces/sqlite-queue-module-options.interface';
import { JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../../table-names.constants';
import { PostgresDirectClient } from '../../storage/postgres/postgres-direct-client';
import { POSTGRES_SCHEMA_VERSION, getPostgresSchemaSql } from '../../storage/postgres/postgres-schema';
import {
  emptyPostgresTable,
  insertPostgresRows,
  lockSchemaForPromote,
  postgresColumns,
  postgresHasJobs,
  postgresIdRange,
  postgresJobCounts,
  postgresRowCount,
  raiseJobIdSequence,
  recordedPostgresVersion,
} from '../../storage/postgres/sql/promote-target.sql';
import { SqliteReadOnlyFile } from '../../storage/sqlite/sqlite-read-only-file';
import { assertDriverInstalled } from '../../runtime/database-driver';
import { installedPackages } from '../../runtime/installed-packages';
import { SQLITE_SCHEMA_VERSION } from '../../storage/sqlite/sqlite-schema';
import {
  liveLeaseHolders,
  liveProcesses,
  recordedSqliteVersion,
  sqliteColumns,
  sqliteIdRange,
  sqliteJobCounts,
  sqliteRowCount,
  sqliteRowsAfter,
  sqliteTableExists,
} from '../../storage/sqlite/sql/promote-source.sql';

/**
 * The tables a promote copies: jobs (with their logs, results, errors, flows and keys), queue state (paused,
 * limits, rate windows) and schedules (with their next run). The cluster-event tables are not copied: their rows
 * are minutes-long notices to processes that are stopped by then.
 */
export const PROMOTED_TABLES = [JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE] as const;

/** What `promoteQueueDatabase` needs. */
export interface PromoteOptions {
  /** The SQLite queue file (read-only). */
  from: string;
  /** The SQLite driver to read it with. */
  driver: SqliteDriverName;
  /** The PostgreSQL connection URL. */
  to: string;
  /** The URL without its password, for messages. */
  toLabel: string;
  /** The PostgreSQL schema to fill. */
  schema: string;
  /** Rows per read and insert (default 5,000). */
  chunkSize?: number;
  /** Called with a progress line about every `progressEvery` ms while rows are copied. */
  progress?: (line: string) => void;
  /** Default 1,000 ms. */
  progressEvery?: number;
  /**
   * Copy although the file's processes table lists live processes (ones killed without a shutdown stay listed until
   * their announcement lapses). Jobs they add or finish during the copy are not in it.
   */
  force?: boolean;
}

/** What a promote copied. */
export interface PromoteReport {
  /** Rows per table. */
  rows: Record<(typeof PROMOTED_TABLES)[number], number>;
  /** Lowest and highest job id copied (0 and 0 for none). */
  ids: { min: number; max: number };
  /** The id the server's sequence was moved to: the next job gets the one after. */
  sequence: number;
  /** Wall time, ms. */
  ms: number;
}

/**
 * Copies a whole SQLite queue database into a PostgreSQL schema in ONE transaction, verified before it commits.
 * Refuses (writing nothing) a source with jobs running under a live lease or live processes in its processes table
 * (unless `force`), a source not at this version's schema,
 * a target whose schema holds jobs or is newer than this version's. The source is opened read-only and read in one
 * snapshot. The target's schema steps run inside the same transaction: a failure leaves the server as it was.
 */
export async function promoteQueueDatabase(options: PromoteOptions): Promise<PromoteReport> {
  const started = Date.now();
  const { from, schema } = options;
  assertSqliteFilePath(from);
  assertDriverInstalled(options.driver, installedPackages);
  const source = await SqliteReadOnlyFile.open(from, options.driver);
  try {
    await source.beginRead();
    const plan = await planCopy(source, from, options.force === true);
    const target = await PostgresDirectClient.connect(options.to, options.toLabel);
    try {
      await target.execute('BEGIN');
      await prepareTarget(target, schema, plan.columns);
      await copyRows(source, target, options, plan);
      await raiseJobIdSequence(target, schema, plan.ids.sequence);
      await verifyCopy(target, schema, plan);
      await target.execute('COMMIT');
    } catch (error) {
      await target.execute('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await target.close().catch(() => undefined);
    }
    return { rows: plan.rows, ids: { min: plan.ids.min, max: plan.ids.max }, sequence: plan.ids.sequence, ms: Date.now() - started };
  } finally {
    await source.endRead().catch(() => undefined);
    await source.close().catch(() => undefined);
  }
}

/** What the source holds, read in its snapshot before anything is written. */
interface CopyPlan {
  columns: Record<(typeof PROMOTED_TABLES)[number], string[]>;
  rows: Record<(typeof PROMOTED_TABLES)[number], number>;
  counts: Map<string, number>;
  ids: { min: number; max: number; sequence: number };
}

async function planCopy(source: SqliteReadOnlyFile, from: string, force: boolean): Promise<CopyPlan> {
  if (!(await sqliteTableExists(source, JOBS_TABLE))) throw new NotAQueueDatabaseError(from);
  const version = await recordedSqliteVersion(source);
  if (version > SQLITE_SCHEMA_VERSION) throw new SchemaTooNewError(version, SQLITE_SCHEMA_VERSION);
  if (version < SQLITE_SCHEMA_VERSION) {
    throw new PromoteRefusedError(
      'schema-mismatch',
      `${from} ${version === 0 ? 'records no schema version (an older build made it)' : `is at schema version ${version}`}, ` +
        `this version's is ${SQLITE_SCHEMA_VERSION}: run ` +
        `\`nestjs-sqlite-queue migrate --database ${from}\` on it first (after a backup)`,
    );
  }
  const holders = await liveLeaseHolders(source, Date.now());
  if (holders.length > 0) {
    const named = holders.map((holder) => `${holder.holder} (${holder.jobs} job(s) of ${holder.queues})`).join(', ');
    throw new PromoteRefusedError(
      'running-jobs',
      `jobs of ${from} are running under a live lease, held by ${named}: stop the workers first, or wait`,
    );
  }
  // A process still live on the file may add or finish jobs after the snapshot: the copy would leave them behind
  // while the command says it copied everything.
  const live = force ? [] : await liveProcesses(source, Date.now());
  if (live.length > 0) {
    const named = live.map((process) => `${process.workerId} (queues ${process.queues})`).join(', ');
    const lapse = new Date(Math.max(...live.map((process) => process.until))).toISOString();
    throw new PromoteRefusedError(
      'live-processes',
      `processes are live on ${from}: ${named}. Stop them (and every process that adds jobs) first; a process killed ` +
        `without a shutdown stays listed until ${lapse}, or copy anyway with --force`,
    );
  }
  const columns = {} as CopyPlan['columns'];
  const rows = {} as CopyPlan['rows'];
  for (const table of PROMOTED_TABLES) {
    columns[table] = await sqliteColumns(source, table);
    rows[table] = await sqliteRowCount(source, table);
  }
  return { columns, rows, counts: await sqliteJobCounts(source), ids: await sqliteIdRange(source) };
}

/**
 * Takes the schema's migration lock, refuses a schema that holds jobs or is too new, brings the schema to this
 * version (the library's own steps, idempotent) and checks that each table has exactly the source's columns.
 */
async function prepareTarget(target: PostgresDirectClient, schema: string, columns: CopyPlan['columns']): Promise<void> {
  await lockSchemaForPromote(target, schema);
  const version = await recordedPostgresVersion(target, schema);
  if (version > POSTGRES_SCHEMA_VERSION) throw new SchemaTooNewError(version, POSTGRES_SCHEMA_VERSION);
  if (await postgresHasJobs(target, schema)) {
    throw new PromoteRefusedError(
      'target-not-empty',
      `schema "${schema}" already holds jobs: promote fills an empty schema only (pick another --schema)`,
    );
  }
  for (const sql of getPostgresSchemaSql(schema)) await target.execute(sql);
  for (const table of PROMOTED_TABLES) {
    const found = await postgresColumns(target, schema, table);
    const missing = columns[table].filter((column) => !found.includes(column));
    const extra = found.filter((column) => !columns[table].includes(column));
    if (missing.length > 0 || extra.length > 0) {
      throw new PromoteRefusedError(
        'schema-mismatch',
        `table ${table} differs between the file and schema "${schema}" (only in the file: ${missing.join(', ') || '-'}; only on the server: ${extra.join(', ') || '-'})`,
      );
    }
    // Queue state and schedules a process on the server may have written before: the file's replace them.
    if (table !== JOBS_TABLE) await emptyPostgresTable(target, schema, table);
  }
}

async function copyRows(source: SqliteReadOnlyFile, target: PostgresDirectClient, options: PromoteOptions, plan: CopyPlan): Promise<void> {
  const chunk = options.chunkSize ?? 5000;
  const total = PROMOTED_TABLES.reduce((sum, table) => sum + plan.rows[table], 0);
  let copied = 0;
  const started = Date.now();
  const report = () =>
    options.progress?.(
      `promote: ${copied.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} rows copied (${Math.round((Date.now() - started) / 1000)} s)`,
    );
  const ticker = setInterval(report, options.progressEvery ?? 1000);
  try {
    for (const table of PROMOTED_TABLES) {
      const columns = plan.columns[table];
      for (let after = 0; ;) {
        const batch = await sqliteRowsAfter(source, table, columns, after, chunk);
        if (batch.length === 0) break;
        await insertPostgresRows(
          target,
          options.schema,
          table,
          columns,
          batch.map(({ row }) => row),
        );
        after = batch[batch.length - 1].rowid;
        copied += batch.length;
      }
    }
  } finally {
    clearInterval(ticker);
  }
}

/** Counts per queue and status, id range and row counts of the server's copy, against the source's, before the commit. */
async function verifyCopy(target: PostgresDirectClient, schema: string, plan: CopyPlan): Promise<void> {
  const differences: string[] = [];
  const counts = await postgresJobCounts(target, schema);
  for (const key of new Set([...plan.counts.keys(), ...counts.keys()])) {
    if ((plan.counts.get(key) ?? 0) !== (counts.get(key) ?? 0)) {
      differences.push(`${key}: ${plan.counts.get(key) ?? 0} in the file, ${counts.get(key) ?? 0} copied`);
    }
  }
  const ids = await postgresIdRange(target, schema);
  if (ids.min !== plan.ids.min || ids.max !== plan.ids.max) {
    differences.push(`job ids ${plan.ids.min}-${plan.ids.max} in the file, ${ids.min}-${ids.max} copied`);
  }
  for (const table of PROMOTED_TABLES) {
    const rows = await postgresRowCount(target, schema, table);
    if (rows !== plan.rows[table]) differences.push(`${table}: ${plan.rows[table]} rows in the file, ${rows} copied`);
  }
  if (differences.length > 0)
    throw new PromoteRefusedError('verification-failed', `the copy differs from the file: ${differences.join('; ')}`);
}
