import { Logger } from '@nestjs/common';
import { Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { FinishedJobStatus, JobStatus } from '../../interfaces/job-info.interface';
import { PostgresQueueOptions } from '../../interfaces/postgres-queue-options.interface';
import {
  AttemptRef,
  ClaimRequest,
  Completion,
  CountRow,
  FinishedJobTiming,
  JobRecord,
  KeyBlockedJob,
  ListJobsQuery,
  NewJobRecord,
  OldestDueRow,
  QueueStorage,
  RecoveredJob,
  RetentionRule,
  ScheduleOccurrence,
  ScheduleRecord,
} from '../queue-storage.interface';
import { StorageRow, claimedFieldsOf, claimedJobRecord, nullableNumber, toJobRecord, toScheduleRecord } from '../shared/job-row.mapper';
import { InsertedRow, PairingBackend, pairEnqueued } from '../shared/pair-enqueued';
import { BurstLogger } from '../../utils/burst-logger';
import { guardPoolErrors } from './guard-pool-errors';
import { PgListenClient, PostgresNotificationListener } from './postgres-notification-listener';
import { clientFactoryOf, masterPoolOf } from './typeorm-postgres-internals';
import {
  COUNT_SCHEMA_OBJECTS_SQL,
  DEFAULT_POSTGRES_SCHEMA,
  PostgresQueueSql,
  SCHEMA_LOCK_SQL,
  SCHEMA_OBJECTS,
  getPostgresSchemaSql,
  notifyChannel,
  postgresQueueSql,
  postgresSchemaProblem,
} from './postgres-queue.sql';

type Row = StorageRow;

/** Where the PostgreSQL storage gets its connection, and the schema settings that apply either way. */
export type PostgresStorageConfig = ({ dataSource: DataSource } | { connection: PostgresQueueOptions }) & {
  /** Default `'nest_queue'`. */
  schema?: string;
  /** Default true. */
  createSchema?: boolean;
};

/**
 * The PostgreSQL backend (TypeORM `postgres` driver, node-postgres). Every method is one statement on a pooled
 * connection, so many processes on many machines work the same tables concurrently: claims lock their rows
 * with `FOR UPDATE SKIP LOCKED` and never wait for each other. Insert hints come from LISTEN/NOTIFY on a
 * dedicated connection, so a job enqueued on one machine wakes the pollers of all.
 */
export class PostgresQueueStorage implements QueueStorage {
  private readonly dataSource: DataSource;
  private readonly ownsDataSource: boolean;
  private readonly schema: string;
  private readonly createSchema: boolean;
  private readonly sql: PostgresQueueSql;
  private readonly logger = new Logger('SqliteQueue:postgres');
  /** Connection errors come in storms (every pooled connection at once): one line per storm. */
  private readonly connectionErrors = new BurstLogger(this.logger);
  private listener?: PostgresNotificationListener;
  private initializing?: Promise<void>;
  private closed = false;

  constructor(config: PostgresStorageConfig) {
    this.schema = config.schema ?? DEFAULT_POSTGRES_SCHEMA;
    const problem = postgresSchemaProblem(this.schema);
    if (problem) throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(this.schema)}: ${problem}`);
    this.createSchema = config.createSchema ?? true;
    this.sql = postgresQueueSql(this.schema);
    if ('dataSource' in config) {
      this.dataSource = config.dataSource;
      this.ownsDataSource = false;
    } else {
      const { url, host, port, username, password, database, ssl, poolSize } = config.connection;
      this.dataSource = new DataSource({
        type: 'postgres',
        url,
        host,
        port,
        username,
        password,
        database,
        ssl,
        poolSize,
        applicationName: 'nest-queue',
        // Idle pooled connections do not keep the process alive, as with SQLite (see the listener).
        extra: { allowExitOnIdle: true },
        synchronize: false,
        logging: false,
      });
      this.ownsDataSource = true;
    }
  }

  get insertHints$(): Observable<void> {
    if (!this.listener) throw new Error('PostgresQueueStorage used before initialize()');
    return this.listener.hints$;
  }

  initialize(): Promise<void> {
    this.initializing ??= this.open();
    return this.initializing;
  }

  /** Waits for an initialize in progress, then releases everything; safe to call at any time, and twice. */
  async close(): Promise<void> {
    this.closed = true;
    await this.initializing?.catch(() => undefined);
    await this.releaseResources();
  }

  private async open(): Promise<void> {
    if (this.closed) throw new Error('PostgresQueueStorage closed before initialize()');
    const type = this.dataSource.options.type;
    if (type !== 'postgres') {
      throw new Error(`PostgresQueueStorage needs a DataSource of type 'postgres', got '${type}'`);
    }
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      this.guardConnections();
      if (this.createSchema) await this.ensureSchema();
      else await this.checkSchema();
      // Closed meanwhile: open no LISTEN connection that close() would no longer see.
      if (this.closed) return;
      this.listener = new PostgresNotificationListener(
        () => this.createListenClient(),
        notifyChannel(this.schema),
        this.sql.listen,
        this.logger,
      );
      await this.listener.start();
    } catch (error) {
      // The factory never closes a storage whose initialize failed: release what we opened here.
      await this.releaseResources().catch(() => undefined);
      throw error;
    }
  }

  /** No error of a pooled connection may go unhandled (that kills the process): see guardPoolErrors. */
  private guardConnections(): void {
    const master = masterPoolOf(this.dataSource);
    if (!master) {
      this.logger.warn('Cannot reach the pg pool inside the TypeORM postgres driver: connection errors are left to TypeORM');
      return;
    }
    guardPoolErrors(master.pool, master.clients, (error) =>
      this.connectionErrors.report(`PostgreSQL connection error (the pool replaces the connection): ${error.message}`),
    );
  }

  private async releaseResources(): Promise<void> {
    await this.listener?.close();
    if (this.ownsDataSource && this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  async enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    if (jobs.length === 0) return [];
    return pairEnqueued(this.pairing, queue, jobs, await this.insert(queue, jobs, ms(now)), ms(now));
  }

  /** The insert statement alone: the rows it inserted, in input order. */
  private async insert(queue: string, jobs: NewJobRecord[], now: number): Promise<InsertedRow[]> {
    const rows = await this.select(this.sql.enqueue, [
      queue,
      ms(now),
      jobs.map((job) => job.data),
      jobs.map((job) => job.priority),
      jobs.map((job) => ms(job.runAt)),
      jobs.map((job) => job.maxAttempts),
      jobs.map((job) => job.backoff),
      jobs.map((job) => job.timeout),
      jobs.map((job) => job.key),
    ]);
    // Only ids come back (the rest is what we sent): a bulk insert does not echo its payloads over the wire.
    return rows
      .map((row) => ({ id: String(row.id), key: (row.unique_key as string | null) ?? null }))
      .sort((a, b) => compareIds(a.id, b.id));
  }

  /** Backend half of `pairEnqueued`. */
  private readonly pairing: PairingBackend = {
    findByKeys: (queue, keys) => this.findLiveByKeys(queue, keys),
    insert: (queue, jobs, now) => this.insert(queue, jobs, ms(now)),
  };

  async findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]> {
    return (await this.select(this.sql.findByKeys, [queue, keys])).map(toJobRecord);
  }

  async claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]> {
    // On this node's clock, like every time the nodes compare (see Clocks in the README): PostgreSQL statements
    // do not wait for a file lock, and the database server's clock may differ from the nodes'.
    const leaseUntil = now + leaseDuration;
    const wanted = requests.filter((request) => request.limit > 0);
    if (wanted.length === 0) return [];
    const rows = await this.select(this.sql.claim, [
      workerId,
      ms(leaseUntil),
      ms(now),
      wanted.map((request) => request.queue),
      wanted.map((request) => request.limit),
    ]);
    return rows.map((row) => claimedJobRecord(claimedFieldsOf(row), workerId, leaseUntil, now));
  }

  async completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
    const valid = completions.filter(({ ref }) => toRowId(ref.id) !== null);
    if (valid.length === 0) return new Set();
    const rows = await this.select(this.sql.completeMany, [
      ms(now),
      valid.map(({ ref }) => ref.id),
      valid.map(({ ref }) => ref.attempt),
      valid.map(({ result }) => result),
      workerId,
    ]);
    return new Set(rows.map((row) => String(row.id)));
  }

  async retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean> {
    const id = toRowId(ref.id);
    if (id === null) return false;
    return (await this.execute(this.sql.retry, [error, ms(runAt), ms(now), id, workerId, ref.attempt])) === 1;
  }

  async fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
    const id = toRowId(ref.id);
    if (id === null) return false;
    return (await this.execute(this.sql.fail, [error, ms(now), id, workerId, ref.attempt])) === 1;
  }

  async updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean> {
    const id = toRowId(ref.id);
    if (id === null) return false;
    return (await this.execute(this.sql.updateProgress, [progress, ms(now), id, workerId, ref.attempt])) === 1;
  }

  async findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]> {
    const pairs = attemptArrays(refs);
    if (pairs.ids.length === 0) return [];
    const rows = await this.select(this.sql.findCancelled, [workerId, pairs.ids, pairs.attempts]);
    return rows.map((row) => String(row.id));
  }

  async release(refs: AttemptRef[], workerId: string, now: number): Promise<number> {
    const pairs = attemptArrays(refs);
    if (pairs.ids.length === 0) return 0;
    const [row] = await this.select(this.sql.release, [ms(now), workerId, pairs.ids, pairs.attempts]);
    return Number(row?.count ?? 0);
  }

  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number> {
    return this.execute(this.sql.extendLeases, [ms(now + leaseDuration), ms(now), attemptArrays(refs).ids, workerId]);
  }

  async recoverExpiredLeases(now: number, jitterWindow: number): Promise<RecoveredJob[]> {
    const rows = await this.select(this.sql.recoverExpired, [ms(now), Math.max(1, ms(jitterWindow))]);
    return rows.map((row) => ({
      id: String(row.id),
      queue: String(row.queue),
      status: row.status as RecoveredJob['status'],
      attempts: Number(row.attempts),
      runAt: Number(row.run_at),
    }));
  }

  async getJob(id: string): Promise<JobRecord | null> {
    const rowId = toRowId(id);
    if (rowId === null) return null;
    const [row] = await this.select(this.sql.getJob, [rowId]);
    return row ? toJobRecord(row) : null;
  }

  async listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
    const rows =
      query.status === undefined
        ? await this.select(this.sql.listJobs, [queue, query.limit, query.offset])
        : await this.select(this.sql.listJobsByStatus, [queue, query.status, query.limit, query.offset]);
    return rows.map(toJobRecord);
  }

  async getCounts(queue?: string): Promise<CountRow[]> {
    const rows = queue === undefined ? await this.select(this.sql.countAll, []) : await this.select(this.sql.countQueue, [queue]);
    return rows.map((row) => ({ queue: String(row.queue), status: row.status as JobStatus, count: Number(row.count) }));
  }

  async getPausedQueues(): Promise<string[]> {
    return (await this.select(this.sql.pausedQueues, [])).map((row) => String(row.queue));
  }

  async finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]> {
    const rows = await this.select(this.sql.finishedSince, [ms(since), limit]);
    return rows.map((row) => ({
      queue: String(row.queue),
      status: row.status as FinishedJobStatus,
      waitMs: nullableNumber(row.wait_ms),
      runMs: nullableNumber(row.run_ms),
      finishedAt: Number(row.finished_at),
    }));
  }

  async oldestDuePending(now: number): Promise<OldestDueRow[]> {
    const rows = await this.select(this.sql.oldestDuePending, [ms(now)]);
    return rows.map((row) => ({ queue: String(row.queue), runAt: Number(row.run_at) }));
  }

  async setPaused(queue: string, paused: boolean, now: number): Promise<void> {
    await this.execute(this.sql.setPaused, [queue, paused, ms(now)]);
  }

  async cancel(id: string, now: number): Promise<JobStatus | null> {
    const rowId = toRowId(id);
    if (rowId === null) return null;
    const [row] = await this.select(this.sql.cancel, [ms(now), rowId]);
    return row ? (row.status as JobStatus) : null;
  }

  async retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]> {
    let statement: string;
    let params: unknown[];
    if ('ids' in target) {
      const ids = target.ids.map(toRowId).filter((rowId): rowId is string => rowId !== null);
      if (ids.length === 0) return [];
      [statement, params] = [this.sql.retryFinishedByIds, [ms(now), ids]];
    } else {
      [statement, params] = [this.sql.retryFinishedOfQueue, [ms(now), target.queue]];
    }
    // The statement skips keys held by live jobs as of its snapshot; a key taken by a transaction that commits
    // meanwhile still collides (23505). Run again, now seeing that job, a bounded number of times.
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.select(statement, params)).map((row) => String(row.id));
      } catch (error) {
        if (attempt >= RETRY_FINISHED_ROUNDS || !isUniqueViolation(error)) throw error;
      }
    }
  }

  async keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
    const rows = await this.select(this.sql.keyBlockedFailed, [queue, ms(finishedAtMost)]);
    return rows.map((row) => ({ id: String(row.id), key: String(row.unique_key), holderId: String(row.holder_id) }));
  }

  async remove(id: string): Promise<JobStatus | null> {
    const rowId = toRowId(id);
    if (rowId === null) return null;
    const [row] = await this.select(this.sql.remove, [rowId]);
    return row ? (row.status as JobStatus) : null;
  }

  applyRetention(queue: string, status: FinishedJobStatus, rule: RetentionRule, limit: number): Promise<number> {
    // NULL disables a bound: nothing is older than NULL, and no rank exceeds it.
    const finishedBefore = rule.finishedBefore === undefined ? null : ms(rule.finishedBefore);
    return this.execute(this.sql.applyRetention, [queue, status, finishedBefore, rule.maxCount ?? null, limit]);
  }

  clean(queue: string, statuses: JobStatus[], before: number): Promise<number> {
    if (statuses.length === 0) return Promise.resolve(0);
    return this.execute(this.sql.clean, [queue, ms(before), statuses]);
  }

  async upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void> {
    const { queue, name, cron, every, timezone, data, options, nextRunAt } = schedule;
    await this.execute(this.sql.upsertSchedule, [queue, name, cron, every, timezone, data, options, ms(nextRunAt), ms(now)]);
  }

  async removeSchedule(queue: string, name: string): Promise<boolean> {
    return (await this.execute(this.sql.removeSchedule, [queue, name])) === 1;
  }

  async listSchedules(): Promise<ScheduleRecord[]> {
    return (await this.select(this.sql.listSchedules, [])).map(toScheduleRecord);
  }

  async dueSchedules(now: number): Promise<ScheduleRecord[]> {
    return (await this.select(this.sql.dueSchedules, [ms(now)])).map(toScheduleRecord);
  }

  async enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
    const { schedule, occurrenceAt, job, nextRunAt } = occurrence;
    const [row] = await this.select(this.sql.enqueueOccurrence, [
      schedule.queue, job.data, job.priority, ms(job.runAt), job.maxAttempts, job.backoff, job.timeout, job.key,
      `${schedule.name}@${occurrenceAt}`, ms(now), schedule.name, ms(nextRunAt), ms(schedule.nextRunAt),
    ]);
    return Number(row?.inserted ?? 0) === 1;
  }

  /**
   * Creates the schema when something is missing. Skipped entirely when every object exists, so a booting
   * process takes no DDL lock on a busy table; otherwise run in one transaction under an advisory lock, because
   * concurrent `CREATE ... IF NOT EXISTS` of one object can fail in PostgreSQL (a unique violation in its catalog).
   */
  private async ensureSchema(): Promise<void> {
    if (await this.schemaComplete()) return;
    const runner = this.dataSource.createQueryRunner('master');
    try {
      await runner.startTransaction();
      await runner.query(SCHEMA_LOCK_SQL, [this.schema]);
      for (const statement of getPostgresSchemaSql(this.schema)) await runner.query(statement);
      await runner.commitTransaction();
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  private async checkSchema(): Promise<void> {
    if (await this.schemaComplete()) return;
    throw new Error(
      `PostgreSQL schema "${this.schema}" lacks some of the queue's tables or indexes (${SCHEMA_OBJECTS.join(', ')}) ` +
        'and postgres.createSchema is false: run the statements of getPostgresSchemaSql() in a migration first',
    );
  }

  private async schemaComplete(): Promise<boolean> {
    const [row] = await this.select(COUNT_SCHEMA_OBJECTS_SQL, [this.schema, SCHEMA_OBJECTS]);
    return Number(row?.count) === SCHEMA_OBJECTS.length;
  }

  /**
   * A connection of its own for LISTEN, configured like the DataSource's pool: a pooled connection would be
   * handed to other queries, and a held one would shrink the pool. TCP keep-alive lets the OS notice a peer
   * that vanished without closing the socket.
   */
  private createListenClient(): PgListenClient {
    const { Client, options: poolOptions } = clientFactoryOf(this.dataSource);
    return new Client({
      ...poolOptions,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: poolOptions.connectionTimeoutMillis || 10_000,
    });
  }

  private async select(statement: string, params: unknown[]): Promise<Row[]> {
    return (await this.run(statement, params)).records;
  }

  private async execute(statement: string, params: unknown[]): Promise<number> {
    return (await this.run(statement, params)).affected;
  }

  /** One statement on a pooled connection, returned to the pool at once: no transaction is ever left open. */
  private async run(statement: string, params: unknown[]): Promise<{ records: Row[]; affected: number }> {
    const runner = this.dataSource.createQueryRunner('master');
    try {
      const result = await runner.query(statement, params, true);
      return { records: (result.records ?? []) as Row[], affected: result.affected ?? 0 };
    } finally {
      await runner.release();
    }
  }
}

/** How many times a retry of finished jobs runs when keys keep being taken under it. */
const RETRY_FINISHED_ROUNDS = 3;

/** PostgreSQL's unique_violation, as TypeORM's QueryFailedError carries it. */
function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } } | null)?.driverError;
  return driverError?.code === '23505';
}

/** Times are bound to bigint columns: a fractional ms (a fractional lease or delay) would be rejected. */
function ms(value: number): number {
  return Math.round(value);
}

/** Orders decimal id strings numerically without losing precision past 2^53. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}


/** Our ids are positive bigints; anything else names no job. Kept as strings: ids may exceed 2^53. */
function toRowId(id: string): string | null {
  return typeof id === 'string' && /^[1-9]\d{0,17}$/.test(id) ? id : null;
}

function attemptArrays(refs: AttemptRef[]): { ids: string[]; attempts: number[] } {
  const ids: string[] = [];
  const attempts: number[] = [];
  for (const ref of refs) {
    const id = toRowId(ref.id);
    if (id === null) continue;
    ids.push(id);
    attempts.push(ref.attempt);
  }
  return { ids, attempts };
}



