import { Logger } from '@nestjs/common';
import { Observable, Subject, merge } from 'rxjs';
import { DataSource } from 'typeorm';
import { FinishedJobStatus, JobStatus } from '../../interfaces/job-info.interface';
import { SqliteDriverName } from '../../interfaces/sqlite-queue-module-options.interface';
import { BUSY_TIMEOUT_MS, JOBS_TABLE } from '../../sqlite-queue.constants';
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
import { StorageRow, claimedJobRecord, nullableNumber, toJobRecord, toScheduleRecord } from '../job-row.mapper';
import { InsertedRow, PairingBackend, pairEnqueued } from '../pair-enqueued';
import * as sql from './sqlite-queue.sql';
import { NodeSqlite3Database, PreparedNodeSqlite3Statements, QueryRunnerStatements, SqliteStatements } from './sqlite-statements';
import { insertHintsOf } from './sqlite-update-hook';
import { NodeSqlite3Module, WalCheckpointer } from './wal-checkpointer';

type Row = StorageRow;

/** Where the SQLite storage gets its connection. */
export type SqliteConnectionSource = { dataSource: DataSource } | { database: string; driver: SqliteDriverName };

/**
 * The SQLite backend. It runs only single, self-contained statements: TypeORM's sqlite driver has one
 * connection, and two interleaved transactions on it corrupt each other (see the README).
 */
export class SqliteQueueStorage implements QueueStorage {
  private readonly dataSource: DataSource;
  private readonly ownsDataSource: boolean;
  private statements?: SqliteStatements;
  private checkpointer?: WalCheckpointer;
  private hints$?: Observable<void>;
  /** Our own inserts announce themselves: no native round trip per row. */
  private readonly localInserts = new Subject<void>();

  constructor(source: SqliteConnectionSource) {
    if ('dataSource' in source) {
      this.dataSource = source.dataSource;
      this.ownsDataSource = false;
    } else {
      const common = { database: source.database, enableWAL: source.database !== ':memory:', synchronize: false, logging: false };
      this.dataSource =
        source.driver === 'better-sqlite3'
          ? new DataSource({ ...common, type: 'better-sqlite3', timeout: BUSY_TIMEOUT_MS })
          : new DataSource({ ...common, type: 'sqlite', busyTimeout: BUSY_TIMEOUT_MS, driver: quietSqlite3() });
      this.ownsDataSource = true;
    }
  }

  get insertHints$(): Observable<void> {
    if (!this.hints$) throw new Error('SqliteQueueStorage used before initialize()');
    return this.hints$;
  }

  async initialize(): Promise<void> {
    const type = this.dataSource.options.type;
    if (type !== 'sqlite' && type !== 'better-sqlite3') {
      throw new Error(`SqliteQueueStorage needs a DataSource of type 'sqlite' or 'better-sqlite3', got '${type}'`);
    }
    if (!this.dataSource.isInitialized) await this.dataSource.initialize();
    const connection = (this.dataSource.driver as unknown as { databaseConnection: unknown }).databaseConnection;
    if (type === 'sqlite') serializeStatements(connection);
    this.statements =
      type === 'sqlite' && this.ownsDataSource
        ? new PreparedNodeSqlite3Statements(connection as NodeSqlite3Database)
        : new QueryRunnerStatements(this.dataSource.createQueryRunner());
    await this.configureConnection();
    for (const statement of sql.SCHEMA_SQL) await this.execute(statement);
    // Only where it can run beside the writer: our own node-sqlite3 connection (better-sqlite3 would run it on
    // this thread, and a borrowed connection's file is the application's to manage).
    if (type === 'sqlite' && this.ownsDataSource && this.dataSource.options.database !== ':memory:') {
      const logger = new Logger('SqliteQueue');
      const checkpointer = new WalCheckpointer(String(this.dataSource.options.database), logger);
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        await checkpointer.open(require('sqlite3') as NodeSqlite3Module);
        this.checkpointer = checkpointer;
      } catch (error) {
        // Only speed is lost: the writer's own automatic checkpoint keeps the WAL in bounds.
        logger.warn(`No background WAL checkpoints (second connection refused): ${String(error)}`);
      }
    }
    this.hints$ = this.localInserts.asObservable();
    // SQLite's update hook reports every row change of the connection to JavaScript, one event each (three per
    // job: insert, claim, completion): 20 % of the CPU of a busy worker. On our own connection every write is
    // ours and announces itself. A borrowed connection is shared with the application, which may insert jobs
    // itself (in its own transaction, say): there the hook is what tells the poller.
    if (type === 'sqlite' && !this.ownsDataSource) {
      this.hints$ = merge(this.hints$, insertHintsOf(connection, JOBS_TABLE));
    }
  }

  async close(): Promise<void> {
    await this.statements?.close();
    await this.checkpointer?.close();
    if (this.ownsDataSource && this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  async enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    return pairEnqueued(this.pairing, queue, jobs, await this.insert(queue, jobs, now), now);
  }

  /** The insert statement alone: the rows it inserted, in input order. */
  private async insert(queue: string, jobs: NewJobRecord[], now: number): Promise<InsertedRow[]> {
    const rows =
      jobs.length === 1
        ? await this.select(sql.ENQUEUE_ONE_SQL, enqueueOneParams(queue, jobs[0], now))
        : await this.select(sql.ENQUEUE_SQL, [queue, now, now, enqueuePayload(jobs)]);
    if (rows.length > 0) {
      this.localInserts.next();
      this.checkpointer?.written();
    }
    return rows
      .map((row) => ({ id: Number(row.id), key: (row.unique_key as string | null) ?? null }))
      .sort((a, b) => a.id - b.id)
      .map(({ id, key }) => ({ id: String(id), key }));
  }

  /** Backend half of `pairEnqueued`. */
  private readonly pairing: PairingBackend = {
    findByKeys: (queue, keys) => this.findLiveByKeys(queue, keys),
    insert: (queue, jobs, now) => this.insert(queue, jobs, now),
  };

  async findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]> {
    return (await this.select(sql.FIND_BY_KEYS_SQL, [queue, JSON.stringify(keys)])).map(toJobRecord);
  }

  async claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]> {
    const params: unknown[] = [workerId, Math.round(leaseDuration), now, now];
    for (const request of requests) params.push(request.queue, now, request.queue, request.limit);
    const rows = await this.select(sql.claimSql(requests.length), params);
    if (rows.length > 0) this.checkpointer?.written();
    return rows.map((row) => toClaimedRecord(row, workerId, now));
  }

  async completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
    if (completions.length === 0) return new Set();
    const items = JSON.stringify(completions.map(({ ref, result }) => [Number(ref.id), ref.attempt, result]));
    const rows = await this.select(sql.COMPLETE_MANY_SQL, [now, now, items, workerId]);
    this.checkpointer?.written();
    return new Set(rows.map((row) => String(row.id)));
  }

  async retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean> {
    return (await this.execute(sql.RETRY_SQL, [error, runAt, now, Number(ref.id), workerId, ref.attempt])) === 1;
  }

  async fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
    return (await this.execute(sql.FAIL_SQL, [error, now, now, Number(ref.id), workerId, ref.attempt])) === 1;
  }

  async updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean> {
    return (await this.execute(sql.UPDATE_PROGRESS_SQL, [progress, now, Number(ref.id), workerId, ref.attempt])) === 1;
  }

  async findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]> {
    if (refs.length === 0) return [];
    const rows = await this.select(sql.FIND_CANCELLED_SQL, [workerId, attemptPairs(refs)]);
    return rows.map((row) => String(row.id));
  }

  async release(refs: AttemptRef[], workerId: string, now: number): Promise<number> {
    if (refs.length === 0) return 0;
    return this.execute(sql.RELEASE_SQL, [now, workerId, attemptPairs(refs)]);
  }

  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number> {
    const ids = JSON.stringify(refs.map((ref) => Number(ref.id)));
    return this.execute(sql.EXTEND_LEASES_SQL, [Math.round(leaseDuration), now, ids, workerId]);
  }

  async recoverExpiredLeases(now: number, jitterWindow: number): Promise<RecoveredJob[]> {
    const window = Math.max(1, Math.round(jitterWindow));
    const rows = await this.select(sql.RECOVER_EXPIRED_SQL, [now, now, window, now, now]);
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
    const [row] = await this.select(sql.GET_JOB_SQL, [rowId]);
    return row ? toJobRecord(row) : null;
  }

  async listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
    const rows =
      query.status === undefined
        ? await this.select(sql.LIST_JOBS_SQL, [queue, query.limit, query.offset])
        : await this.select(isFinishedStatus(query.status) ? sql.LIST_FINISHED_JOBS_SQL : sql.LIST_JOBS_BY_STATUS_SQL, [
            queue,
            query.status,
            query.limit,
            query.offset,
          ]);
    return rows.map(toJobRecord);
  }

  async getPausedQueues(): Promise<string[]> {
    return (await this.select(sql.PAUSED_QUEUES_SQL, [])).map((row) => String(row.queue));
  }

  async finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]> {
    const rows = await this.select(sql.FINISHED_SINCE_SQL, [since, limit]);
    return rows.map((row) => ({
      queue: String(row.queue),
      status: row.status as FinishedJobStatus,
      waitMs: nullableNumber(row.wait_ms),
      runMs: nullableNumber(row.run_ms),
      finishedAt: Number(row.finished_at),
    }));
  }

  async oldestDuePending(now: number): Promise<OldestDueRow[]> {
    const rows = await this.select(sql.OLDEST_DUE_PENDING_SQL, [now]);
    return rows.map((row) => ({ queue: String(row.queue), runAt: Number(row.run_at) }));
  }

  async setPaused(queue: string, paused: boolean, now: number): Promise<void> {
    await this.execute(sql.SET_PAUSED_SQL, [queue, paused ? 1 : 0, now]);
  }

  async cancel(id: string, now: number): Promise<JobStatus | null> {
    const rowId = toRowId(id);
    if (rowId === null) return null;
    // Read, then a guarded write: if the job moved on in between, the guard makes the write a no-op and
    // we report the status it moved to.
    for (;;) {
      const [row] = await this.select(sql.JOB_STATUS_SQL, [rowId]);
      if (!row) return null;
      const status = row.status as JobStatus;
      if (status !== 'pending' && status !== 'running') return status;
      if ((await this.execute(sql.CANCEL_SQL, [now, now, rowId])) === 1) return status;
    }
  }

  async retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]> {
    const rows =
      'ids' in target
        ? await this.select(sql.RETRY_FINISHED_BY_IDS_SQL, [now, now, JSON.stringify(target.ids.map(toRowId).filter((id) => id !== null))])
        : await this.select(sql.RETRY_FINISHED_OF_QUEUE_SQL, [now, now, target.queue]);
    if (rows.length > 0) this.localInserts.next();
    return rows.map((row) => String(row.id));
  }

  async keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
    const rows = await this.select(sql.KEY_BLOCKED_FAILED_SQL, [queue, finishedAtMost]);
    return rows.map((row) => ({ id: String(row.id), key: String(row.unique_key), holderId: String(row.holder_id) }));
  }

  async remove(id: string): Promise<JobStatus | null> {
    const rowId = toRowId(id);
    if (rowId === null) return null;
    // The delete decides; the read after a refusal only tells "no such job" from "running". A job that stopped
    // running in between is not reported as refused: the delete is tried again.
    for (;;) {
      const [removed] = await this.select(sql.REMOVE_SQL, [rowId]);
      if (removed) return removed.status as JobStatus;
      const [row] = await this.select(sql.JOB_STATUS_SQL, [rowId]);
      if (!row) return null;
      if (row.status === 'running') return 'running';
    }
  }

  applyRetention(queue: string, status: FinishedJobStatus, rule: RetentionRule, limit: number): Promise<number> {
    // -1 disables a bound: nothing finished before -1, and LIMIT -1 keeps everything.
    return this.execute(sql.APPLY_RETENTION_SQL, [queue, status, rule.finishedBefore ?? -1, queue, status, rule.maxCount ?? -1, limit]);
  }

  clean(queue: string, statuses: JobStatus[], before: number): Promise<number> {
    const json = JSON.stringify(statuses);
    return this.execute(sql.CLEAN_SQL, [queue, before, json, queue, before, json]);
  }

  async upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void> {
    const { queue, name, cron, every, timezone, data, options, nextRunAt } = schedule;
    await this.execute(sql.UPSERT_SCHEDULE_SQL, [queue, name, cron, every, timezone, data, options, nextRunAt, now, now]);
  }

  async removeSchedule(queue: string, name: string): Promise<boolean> {
    return (await this.execute(sql.REMOVE_SCHEDULE_SQL, [queue, name])) === 1;
  }

  async listSchedules(): Promise<ScheduleRecord[]> {
    return (await this.select(sql.LIST_SCHEDULES_SQL, [])).map(toScheduleRecord);
  }

  async dueSchedules(now: number): Promise<ScheduleRecord[]> {
    return (await this.select(sql.DUE_SCHEDULES_SQL, [now])).map(toScheduleRecord);
  }

  async enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
    const { schedule, occurrenceAt, job, nextRunAt } = occurrence;
    const inserted = await this.execute(sql.ENQUEUE_OCCURRENCE_SQL, [
      schedule.queue, job.data, job.priority, job.runAt, job.maxAttempts, job.backoff, job.timeout, job.key,
      `${schedule.name}@${occurrenceAt}`, now, now,
    ]);
    await this.execute(sql.ADVANCE_SCHEDULE_SQL, [nextRunAt, now, schedule.queue, schedule.name, schedule.nextRunAt]);
    if (inserted === 1) this.localInserts.next();
    return inserted === 1;
  }

  async getCounts(queue?: string): Promise<CountRow[]> {
    const rows =
      queue === undefined ? await this.select(sql.COUNT_ALL_SQL, []) : await this.select(sql.COUNT_QUEUE_SQL, [queue, queue, queue]);
    return rows.map((row) => ({ queue: String(row.queue), status: row.status as JobStatus, count: Number(row.count) }));
  }

  private async configureConnection(): Promise<void> {
    const memory = this.dataSource.options.database === ':memory:';
    if (!memory) await this.select('PRAGMA journal_mode = WAL', []);
    await this.select(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`, []);
    // A borrowed connection keeps its owner's durability choice; our own trades fsync per commit for WAL's
    // checkpoint-time durability, as SQLite recommends for WAL.
    if (this.ownsDataSource) await this.execute('PRAGMA synchronous = NORMAL');
  }

  private select(statement: string, params: unknown[]): Promise<Row[]> {
    return this.connection().all(statement, params);
  }

  private execute(statement: string, params: unknown[] = []): Promise<number> {
    return this.connection().run(statement, params);
  }

  private connection(): SqliteStatements {
    if (!this.statements) throw new Error('SqliteQueueStorage used before initialize()');
    return this.statements;
  }
}

/** Completed, failed and cancelled rows are the ones with a finished_at, and the finished index holds only those. */
function isFinishedStatus(status: JobStatus): boolean {
  return status !== 'pending' && status !== 'running';
}

function enqueuePayload(jobs: NewJobRecord[]): string {
  return JSON.stringify(jobs.map((job) => [job.data, job.priority, job.runAt, job.maxAttempts, job.backoff, job.timeout, job.key]));
}

function enqueueOneParams(queue: string, job: NewJobRecord, now: number): unknown[] {
  return [queue, job.data, job.priority, job.runAt, job.maxAttempts, job.backoff, job.timeout, job.key, now, now];
}


function attemptPairs(refs: AttemptRef[]): string {
  return JSON.stringify(refs.map((ref) => [Number(ref.id), ref.attempt]));
}

/** Our ids are positive integers; anything else names no job. */
function toRowId(id: string): number | null {
  return /^[1-9]\d{0,15}$/.test(id) ? Number(id) : null;
}



/**
 * node-sqlite3 runs the statements of a connection in parallel unless told otherwise. When one of them fails
 * with SQLITE_BUSY (another process held the write lock past busy_timeout), SQLite keeps that statement in
 * progress, so the writes of statements that run meanwhile cannot autocommit; they are rolled back with it
 * although each reported success (added jobs vanish, completions are undone, reused ids). In serialized mode
 * each statement is finished before the next starts. Shown by test/locked-database.e2e-spec.ts.
 */
/**
 * node-sqlite3 as TypeORM would load it, minus verbose mode: TypeORM calls `verbose()`, which wraps every
 * Database and Statement method process-wide to capture a stack and `util.inspect` each argument on every call
 * (30-40 % of per-statement cost here). Errors still carry their SQLite message. If something else in the
 * process already switched verbose mode on, it stays on: it cannot be undone.
 */
function quietSqlite3(): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sqlite3 = require('sqlite3') as { verbose(): unknown };
  return { ...sqlite3, verbose: () => sqlite3 };
}

function serializeStatements(connection: unknown): void {
  const database = connection as { serialize?: () => void } | null;
  if (typeof database?.serialize === 'function') database.serialize();
}

/** A claimed row: the payload, and the rest packed in the order of `CLAIMED_COLUMNS`. */
function toClaimedRecord(row: Row, workerId: string, now: number): JobRecord {
  const meta = JSON.parse(row.m as string) as ClaimedMeta;
  const [id, queue, priority, runAt, attempts, maxAttempts, backoff, timeout, key, createdAt, leaseUntil] = meta;
  const fields = { id: String(id), queue, data: row.data as string, priority, runAt, attempts, maxAttempts, backoff, timeout, key, createdAt };
  return claimedJobRecord(fields, workerId, leaseUntil, now);
}

/** The packed column of a claimed row, in the order of `CLAIMED_COLUMNS`. */
type ClaimedMeta = [number, string, number, number, number, number, string | null, number | null, string | null, number, number];
