import { Observable, Subject } from 'rxjs';
import { DataSource, QueryRunner } from 'typeorm';
import { JobStatus } from '../../interfaces/job-info.interface';
import { SqliteDriverName } from '../../interfaces/sqlite-queue-module-options.interface';
import { BUSY_TIMEOUT_MS, JOBS_TABLE } from '../../sqlite-queue.constants';
import {
  AttemptRef,
  ClaimRequest,
  CountRow,
  JobRecord,
  NewJobRecord,
  QueueStorage,
  RecoveredJob,
} from '../queue-storage.interface';
import * as sql from './sqlite-queue.sql';
import { insertHintsOf } from './sqlite-update-hook';

type Row = Record<string, unknown>;

/** Where the SQLite storage gets its connection. */
export type SqliteConnectionSource = { dataSource: DataSource } | { database: string; driver: SqliteDriverName };

/**
 * The SQLite backend. It runs only single, self-contained statements: TypeORM's sqlite driver has one
 * connection, and two interleaved transactions on it corrupt each other (see the README).
 */
export class SqliteQueueStorage implements QueueStorage {
  private readonly dataSource: DataSource;
  private readonly ownsDataSource: boolean;
  private runner?: QueryRunner;
  private hints$?: Observable<void>;
  /** Set when the driver has no update hook: our own inserts then announce themselves. */
  private localInserts?: Subject<void>;

  constructor(source: SqliteConnectionSource) {
    if ('dataSource' in source) {
      this.dataSource = source.dataSource;
      this.ownsDataSource = false;
    } else {
      const common = { database: source.database, enableWAL: source.database !== ':memory:', synchronize: false, logging: false };
      this.dataSource =
        source.driver === 'better-sqlite3'
          ? new DataSource({ ...common, type: 'better-sqlite3', timeout: BUSY_TIMEOUT_MS })
          : new DataSource({ ...common, type: 'sqlite', busyTimeout: BUSY_TIMEOUT_MS });
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
    this.runner = this.dataSource.createQueryRunner();
    await this.configureConnection();
    for (const statement of sql.SCHEMA_SQL) await this.execute(statement);
    if (type === 'sqlite') {
      this.hints$ = insertHintsOf((this.dataSource.driver as unknown as { databaseConnection: unknown }).databaseConnection, JOBS_TABLE);
    } else {
      this.localInserts = new Subject<void>();
      this.hints$ = this.localInserts.asObservable();
    }
  }

  async close(): Promise<void> {
    if (this.ownsDataSource && this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  async enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    const payload = JSON.stringify(
      jobs.map((job) => [job.data, job.priority, job.runAt, job.maxAttempts, job.backoff, job.timeout, job.key]),
    );
    const inserted = (await this.select(sql.ENQUEUE_SQL, [queue, now, now, payload]))
      .map(toJobRecord)
      .sort((a, b) => Number(a.id) - Number(b.id));
    if (inserted.length > 0) this.localInserts?.next();
    if (inserted.length === jobs.length) return inserted;
    return this.matchWithExisting(queue, jobs, inserted);
  }

  /**
   * Pairs inputs with rows when some were skipped for a taken key. Inserted rows follow input order, so
   * a keyed input owns the next row exactly when that row carries its key.
   */
  private async matchWithExisting(queue: string, jobs: NewJobRecord[], inserted: JobRecord[]): Promise<JobRecord[]> {
    const result: (JobRecord | undefined)[] = [];
    const missingKeys = new Set<string>();
    let next = 0;
    for (const job of jobs) {
      const row = inserted[next];
      if (row && (job.key === null || row.key === job.key)) {
        result.push(row);
        next++;
      } else {
        result.push(undefined);
        missingKeys.add(job.key as string);
      }
    }
    const existing = new Map(
      (await this.select(sql.FIND_BY_KEYS_SQL, [queue, JSON.stringify([...missingKeys])])).map((row) => {
        const record = toJobRecord(row);
        return [record.key as string, record] as const;
      }),
    );
    const unresolved: number[] = [];
    const records = result.map((row, index) => {
      const match = row ?? existing.get(jobs[index].key as string);
      if (!match) unresolved.push(index);
      return match as JobRecord;
    });
    if (unresolved.length === 0) return records;
    // The holder of the key finished between our insert and our read: the key is free again, so try once more.
    const retried = await this.enqueue(queue, unresolved.map((index) => jobs[index]), Date.now());
    unresolved.forEach((index, i) => (records[index] = retried[i]));
    return records;
  }

  async claim(requests: ClaimRequest[], workerId: string, now: number, leaseUntil: number): Promise<JobRecord[]> {
    const params: unknown[] = [workerId, leaseUntil, now, now];
    for (const request of requests) params.push(request.queue, now, request.limit);
    return (await this.select(sql.claimSql(requests.length), params)).map(toJobRecord);
  }

  async complete(ref: AttemptRef, workerId: string, result: string | null, now: number): Promise<boolean> {
    return (await this.execute(sql.COMPLETE_SQL, [result, now, now, Number(ref.id), workerId, ref.attempt])) === 1;
  }

  async retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean> {
    return (await this.execute(sql.RETRY_SQL, [error, runAt, now, Number(ref.id), workerId, ref.attempt])) === 1;
  }

  async fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
    return (await this.execute(sql.FAIL_SQL, [error, now, now, Number(ref.id), workerId, ref.attempt])) === 1;
  }

  async release(refs: AttemptRef[], workerId: string, now: number): Promise<number> {
    if (refs.length === 0) return 0;
    const pairs = JSON.stringify(refs.map((ref) => [Number(ref.id), ref.attempt]));
    return this.execute(sql.RELEASE_SQL, [now, workerId, pairs]);
  }

  extendLeases(workerId: string, leaseUntil: number, now: number): Promise<number> {
    return this.execute(sql.EXTEND_LEASES_SQL, [leaseUntil, now, workerId]);
  }

  async recoverExpiredLeases(now: number): Promise<RecoveredJob[]> {
    const rows = await this.select(sql.RECOVER_EXPIRED_SQL, [now, now, now, now]);
    return rows.map((row) => ({
      id: String(row.id),
      queue: String(row.queue),
      status: row.status as RecoveredJob['status'],
      attempts: Number(row.attempts),
    }));
  }

  async getJob(id: string): Promise<JobRecord | null> {
    if (!/^\d{1,15}$/.test(id)) return null;
    const [row] = await this.select(sql.GET_JOB_SQL, [Number(id)]);
    return row ? toJobRecord(row) : null;
  }

  async getCounts(queue?: string): Promise<CountRow[]> {
    const rows =
      queue === undefined ? await this.select(sql.COUNT_ALL_SQL, []) : await this.select(sql.COUNT_QUEUE_SQL, [queue]);
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

  private async select(statement: string, params: unknown[]): Promise<Row[]> {
    const result = await this.queryRunner().query(statement, params, true);
    return (result.records ?? []) as Row[];
  }

  private async execute(statement: string, params: unknown[] = []): Promise<number> {
    const result = await this.queryRunner().query(statement, params, true);
    return result.affected ?? 0;
  }

  private queryRunner(): QueryRunner {
    if (!this.runner) throw new Error('SqliteQueueStorage used before initialize()');
    return this.runner;
  }
}

function toJobRecord(row: Row): JobRecord {
  return {
    id: String(row.id),
    queue: row.queue as string,
    status: row.status as JobStatus,
    data: row.data as string,
    priority: Number(row.priority),
    runAt: Number(row.run_at),
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    backoff: (row.backoff as string | null) ?? null,
    timeout: row.timeout_ms === null || row.timeout_ms === undefined ? null : Number(row.timeout_ms),
    key: (row.unique_key as string | null) ?? null,
    lockedBy: (row.locked_by as string | null) ?? null,
    leaseUntil: row.lease_until === null || row.lease_until === undefined ? null : Number(row.lease_until),
    result: (row.result as string | null) ?? null,
    error: (row.error as string | null) ?? null,
    createdAt: Number(row.created_at),
    startedAt: row.started_at === null || row.started_at === undefined ? null : Number(row.started_at),
    finishedAt: row.finished_at === null || row.finished_at === undefined ? null : Number(row.finished_at),
    updatedAt: Number(row.updated_at),
  };
}
