import { Logger } from '@nestjs/common';
import { Observable } from 'rxjs';
import { MODULE_DEFAULTS } from '../../module-defaults.constants';
import { DataSource, EntityManager } from 'typeorm';
import { FinishedJobStatus, JobStatus } from '../../interfaces/job-info.interface';
import {
  AttemptRef,
  ChildRow,
  ClaimRequest,
  QueueLimiterRecord,
  Completion,
  CountRow,
  ExpiredLease,
  FailureRow,
  FinishedJobTiming,
  FlowRecord,
  ExplainFacts,
  JobRecord,
  KeyBlockedJob,
  ProcessorAnnouncementRow,
  PromoteOutcome,
  ProcessAnnouncement,
  ProcessRow,
  WorkerActivityRow,
  RemoveTreeOutcome,
  ListJobsQuery,
  NewFlowNode,
  NewJobRecord,
  OldestDueRow,
  QueueStorage,
  RecoveredJob,
  RetentionRule,
  ScheduleOccurrence,
  ScheduleRecord,
  StoredEventBatch,
  WaitedJobs,
  GroupLoad,
} from '../queue-storage.interface';
import { busiestGroups, groupCounts, listGroupJobs } from './sql/groups.sql';
import { PairingBackend, pairEnqueued } from '../shared/pair-enqueued';
import { PostgresConnection, PostgresConnectionSource } from './postgres-connection';
import { BackupNotSupportedError } from '../../errors/backup-not-supported.error';
import { DEFAULT_POSTGRES_SCHEMA, applyPostgresSchema, postgresSchemaProblem } from './postgres-schema';
import { claimJobs } from './sql/claim.sql';
import { declareLimits, limitedUntil, pauseUntil } from './sql/limits.sql';
import { cancelJob, debounceKeyHolder, keyBlockedFailed, removeJob, retryFinished, setPaused } from './sql/control.sql';
import { lastScheduleRun, pauseSchedule, processorAnnouncements, promoteJob, resumeSchedule, runningByWorker } from './sql/operator.sql';
import { findLiveByKeys, insertJobs } from './sql/enqueue.sql';
import { insertDebounced, insertThrottled, keyHolder, replaceDebounced } from './sql/keyed-enqueue.sql';
import { deadLetterQueues, declareDeadLetters, redrive } from './sql/dead-letters.sql';
import { snoozeJob } from './sql/snooze.sql';
import { KeyedBackend, enqueueKeyed } from '../shared/keyed-enqueue';
import { MAX_JOB_LOG_LINES } from '../../utils/job-logs.util';
import { appendLog, getJobLogs, removeFinishedJobs, updateData } from './sql/job-details.sql';
import { announceProcess, endProcess, processRows } from './sql/processes.sql';
import { announceProcessors, processedQueues, unprocessedQueues } from './sql/processors.sql';
import {
  appendEvents,
  getWaitedJobs,
  hasEventReaders,
  markEventReader,
  markFinishWaiters,
  pruneEvents,
  readEvents,
} from './sql/events.sql';
import {
  countJobs,
  finishedSince,
  recentFailures,
  getJob,
  hasWork,
  jobsByKey,
  listJobs,
  oldestDuePending,
  pausedQueues,
  queueKnown,
} from './sql/inspect.sql';
import { extendLeases, findCancelled, findExpiredLeases, recoverExpiredLease, recoverExpiredLeases, releaseJobs } from './sql/leases.sql';
import { completeJobs, failJob, retryJob, updateProgress } from './sql/outcomes.sql';
import { PostgresContext, ms } from './sql/postgres-sql-fragments';
import { cancelDescendants, childrenOf, flowOf, insertFlow, removeTree } from './sql/flows.sql';
import { PostgresTransactions } from './postgres-transaction';
import { TransactionStatements, dataSourceOfManager, transactionRunnerOf } from '../transactions/transaction-statements';
import { CommitWatch } from '../transactions/commit-watch';
import { applyRetention, cleanJobs } from './sql/retention.sql';
import { dueSchedules, enqueueOccurrence, enqueueScheduleRun, listSchedules, removeSchedule, upsertSchedule } from './sql/schedules.sql';
import { explainFacts } from './sql/explain.sql';

/** Where the PostgreSQL storage gets its connection, and the schema settings that apply either way. */
export type PostgresStorageConfig = PostgresConnectionSource & {
  /** Default `'nest_queue'`. */
  schema?: string;
  /** Default true. */
  createSchema?: boolean;
  /** Hot statements sent as named prepared statements. Default true. */
  preparedStatements?: boolean;
  /** How long boot waits for another process's migration, in ms. Default the module's. */
  migrationLockTimeout?: number;
};

/**
 * The PostgreSQL backend (TypeORM `postgres` driver, node-postgres): the statements of `sql/` on a
 * `PostgresConnection`. Every method is one statement on a pooled connection, so many processes on many machines
 * work the same tables concurrently: claims lock their rows with `FOR UPDATE SKIP LOCKED` and never wait for each
 * other. Insert hints come from LISTEN/NOTIFY on a dedicated connection, so a job enqueued on one machine wakes
 * the pollers of all.
 */
export class PostgresQueueStorage implements QueueStorage {
  private readonly connection: PostgresConnection;
  private readonly db: PostgresContext;
  private readonly schema: string;
  private readonly createSchema: boolean;
  private readonly migrationLockTimeout: number;
  private readonly logger = new Logger('JobQueue:postgres');
  private readonly transactions: PostgresTransactions;

  constructor(config: PostgresStorageConfig) {
    this.schema = config.schema ?? DEFAULT_POSTGRES_SCHEMA;
    const problem = postgresSchemaProblem(this.schema);
    if (problem) throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(this.schema)}: ${problem}`);
    this.createSchema = config.createSchema ?? true;
    this.migrationLockTimeout = config.migrationLockTimeout ?? MODULE_DEFAULTS.migrationLockTimeout;
    this.connection = new PostgresConnection(config, this.schema, config.preparedStatements ?? true);
    this.db = this.connection.context;
    this.transactions = new PostgresTransactions(() => this.connection.source, this.db.runner, this.db.tables);
  }

  /**
   * Group commit's inserts in flight per queue. Two: while one waits for its commit's WAL flush the next is
   * already parsed and inserting (the server flushes concurrent commits together). More only split the adds into
   * smaller statements (4 was slower than 1 and 2 in bench/RESULTS.md's probe) and take pool connections that
   * claims and completions need.
   */
  readonly parallelInserts = 2;

  /** A heartbeat leaves out attempts claimed within its last beat (see LeaseKeeper): no statement here waits for a file lock. */
  readonly skipsFreshLeases = true;

  get insertHints$(): Observable<void> {
    return this.connection.insertHints$;
  }

  get finishHints$(): Observable<string[] | null> {
    return this.connection.finishHints$;
  }

  get eventHints$(): Observable<string | null> {
    return this.connection.eventHints$;
  }

  initialize(): Promise<void> {
    const wait = { timeoutMs: this.migrationLockTimeout, target: `schema "${this.schema}"`, logger: this.logger };
    return this.connection.open((dataSource: DataSource, runner) =>
      applyPostgresSchema(dataSource, runner, this.schema, this.createSchema, wait),
    );
  }

  /** Waits for an initialize in progress, then releases everything; safe to call at any time, and twice. */
  close(): Promise<void> {
    return this.connection.close();
  }

  async enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    if (jobs.length === 0) return [];
    return pairEnqueued(this.pairing, queue, jobs, await insertJobs(this.db, queue, jobs, ms(now)), ms(now));
  }

  afterCommitOf(manager: EntityManager | undefined, callback: () => void): void {
    // Without a manager the rows were committed by their own statement: nothing to wait for.
    if (!manager) callback();
    else CommitWatch.of(dataSourceOfManager(manager)).afterCommit(transactionRunnerOf(manager), callback);
  }

  async enqueueIn(manager: EntityManager, queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    if (jobs.length === 0) return [];
    // The insert's NOTIFY is part of the caller's transaction: PostgreSQL delivers it at commit, drops it on rollback.
    const db = this.inTransaction(await this.transactions.runnerFor(manager));
    const pairing: PairingBackend = {
      findByKeys: (keyQueue, keys) => findLiveByKeys(db, keyQueue, keys),
      insert: (insertQueue, insertJobsOf, insertNow) => insertJobs(db, insertQueue, insertJobsOf, ms(insertNow)),
    };
    return pairEnqueued(pairing, queue, jobs, await pairing.insert(queue, jobs, now), ms(now));
  }

  async enqueueFlow(nodes: NewFlowNode[], now: number, manager?: EntityManager): Promise<string[]> {
    const db = manager ? this.inTransaction(await this.transactions.runnerFor(manager)) : this.db;
    return insertFlow(db, nodes, now);
  }

  private inTransaction(runner: ConstructorParameters<typeof TransactionStatements>[0]): PostgresContext {
    return { runner: new TransactionStatements(runner), tables: this.db.tables };
  }

  getFlow(id: string): Promise<FlowRecord | null> {
    return flowOf(this.db, id);
  }

  childrenOf(id: string): Promise<ChildRow[]> {
    return childrenOf(this.db, id);
  }

  cancelDescendants(id: string, now: number): Promise<{ id: string; queue: string }[]> {
    return cancelDescendants(this.db, id, now);
  }

  removeTree(id: string): Promise<RemoveTreeOutcome | null> {
    return removeTree(this.db, id);
  }

  /** Backend half of `pairEnqueued`. */
  private readonly pairing: PairingBackend = {
    findByKeys: (queue, keys) => this.findLiveByKeys(queue, keys),
    insert: (queue, jobs, now) => insertJobs(this.db, queue, jobs, ms(now)),
  };

  findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]> {
    return findLiveByKeys(this.db, queue, keys);
  }

  enqueueKeyed(queue: string, job: NewJobRecord, now: number): Promise<JobRecord> {
    const db = this.db;
    const backend: KeyedBackend = {
      insertThrottled: (q, j, at) => insertThrottled(db, q, j, at),
      keyHolder: (q, key, at) => keyHolder(db, q, key, at),
      replaceDebounced: (q, j, at) => replaceDebounced(db, q, j, at),
      insertDebounced: (q, j, at) => insertDebounced(db, q, j, at),
    };
    let first = true;
    return enqueueKeyed(backend, queue, job, () => (first ? ((first = false), now) : Date.now()));
  }

  declareDeadLetters(queues: { queue: string; deadLetter: string | null }[], now: number): Promise<void> {
    return declareDeadLetters(this.db, queues, now);
  }

  redrive(deadLetterQueue: string, limit: number, now: number): Promise<number> {
    return redrive(this.db, deadLetterQueue, limit, now);
  }

  deadLetterQueues(): Promise<{ queue: string; sources: string[]; count: number }[]> {
    return deadLetterQueues(this.db);
  }

  snooze(
    ref: AttemptRef,
    workerId: string,
    snooze: { runAt: number; delay: number },
    maxSnoozes: number,
    now: number,
  ): Promise<'snoozed' | 'exhausted' | 'lost'> {
    const { runAt, delay } = snooze;
    return snoozeJob(this.db, ref, workerId, runAt, delay, MAX_JOB_LOG_LINES, maxSnoozes, now);
  }

  claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]> {
    return claimJobs(this.db, requests, workerId, now, leaseDuration);
  }

  declareLimits(limiters: QueueLimiterRecord[], now: number): Promise<void> {
    return declareLimits(this.db, limiters, now);
  }

  async rateLimit(queue: string, ref: AttemptRef, workerId: string, until: number, now: number): Promise<boolean> {
    // The pause first: a crash before the hand-back leaves the job running until its lease expires, never claimable
    // again while the queue should be paused.
    await pauseUntil(this.db, queue, until, now);
    // Recorded in the job's run history as rate limited, not as a hand-back.
    return (await releaseJobs(this.db, [ref], workerId, now, 'rate-limited')) > 0;
  }

  limitedUntil(queues: string[], now: number): Promise<Map<string, number>> {
    return limitedUntil(this.db, queues, now);
  }

  completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
    return completeJobs(this.db, completions, workerId, now);
  }

  retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean> {
    return retryJob(this.db, ref, workerId, error, runAt, now);
  }

  fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
    return failJob(this.db, ref, workerId, error, now);
  }

  updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean> {
    return updateProgress(this.db, ref, workerId, progress, now);
  }

  appendLog(ref: AttemptRef, workerId: string, line: string, maxLines: number, now: number): Promise<boolean> {
    return appendLog(this.db, ref, workerId, line, maxLines, now);
  }

  updateData(ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean> {
    return updateData(this.db, ref, workerId, data, now);
  }

  getJobLogs(id: string): Promise<string | null | undefined> {
    return getJobLogs(this.db, id);
  }

  async removeFinishedJobs(ids: string[], status: 'completed' | 'failed'): Promise<number> {
    if (ids.length === 0) return 0;
    return removeFinishedJobs(this.db, ids, status);
  }

  announceProcess(announcement: ProcessAnnouncement, now: number, forgetBefore: number): Promise<void> {
    return announceProcess(this.db, announcement, now, forgetBefore);
  }

  endProcess(workerId: string, startedAt: number, now: number): Promise<void> {
    return endProcess(this.db, workerId, startedAt, now);
  }

  announceProcessors(queues: string[], until: number, now: number): Promise<void> {
    return announceProcessors(this.db, queues, until, now);
  }

  processedQueues(now: number): Promise<string[]> {
    return processedQueues(this.db, now);
  }

  unprocessedQueues(dueBy: number, now: number): Promise<OldestDueRow[]> {
    return unprocessedQueues(this.db, dueBy, now);
  }

  findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]> {
    return findCancelled(this.db, refs, workerId);
  }

  release(refs: AttemptRef[], workerId: string, now: number): Promise<number> {
    return releaseJobs(this.db, refs, workerId, now);
  }

  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number> {
    return extendLeases(this.db, refs, workerId, leaseDuration, now);
  }

  recoverExpiredLeases(now: number, jitterWindow: number, skip: readonly string[] = []): Promise<RecoveredJob[]> {
    return recoverExpiredLeases(this.db, now, jitterWindow, skip);
  }

  recoverExpiredLease(id: string, now: number, jitterWindow: number): Promise<RecoveredJob | null> {
    return recoverExpiredLease(this.db, id, now, jitterWindow);
  }

  findExpiredLeases(now: number, skip: readonly string[]): Promise<ExpiredLease[]> {
    return findExpiredLeases(this.db, now, skip);
  }

  getJob(id: string): Promise<JobRecord | null> {
    return getJob(this.db, id);
  }

  explainFacts(id: string, now: number): Promise<ExplainFacts | null> {
    return explainFacts(this.db, id, now);
  }

  listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listJobs(this.db, queue, query);
  }

  jobsByKey(queue: string, key: string, limit: number): Promise<JobRecord[]> {
    return jobsByKey(this.db, queue, key, limit);
  }

  getCounts(queue?: string, name?: string): Promise<CountRow[]> {
    return countJobs(this.db, queue, name);
  }

  groupCounts(queue: string, group: string, name?: string): Promise<CountRow[]> {
    return groupCounts(this.db, queue, group, name);
  }

  listGroupJobs(queue: string, group: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listGroupJobs(this.db, queue, group, query);
  }

  busiestGroups(queue: string, limit: number): Promise<GroupLoad[]> {
    return busiestGroups(this.db, queue, limit);
  }

  getPausedQueues(): Promise<string[]> {
    return pausedQueues(this.db);
  }

  queueKnown(queue: string): Promise<boolean> {
    return queueKnown(this.db, queue);
  }

  recentFailures(queue: string, limit: number): Promise<FailureRow[]> {
    return recentFailures(this.db, queue, limit);
  }

  finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]> {
    return finishedSince(this.db, since, limit);
  }

  getWaitedJobs(ids: string[]): Promise<WaitedJobs> {
    return getWaitedJobs(this.db, ids);
  }

  appendEvents(batch: StoredEventBatch): Promise<void> {
    return appendEvents(this.db, batch);
  }

  readEvents(afterId: string | null, limit: number, origin: string): Promise<{ batches: StoredEventBatch[]; cursor: string }> {
    return readEvents(this.db, afterId, limit, origin);
  }

  markEventReader(origin: string, now: number): Promise<void> {
    return markEventReader(this.db, origin, now);
  }

  markFinishWaiters(now: number): Promise<void> {
    return markFinishWaiters(this.db, now);
  }

  hasEventReaders(since: number): Promise<boolean> {
    return hasEventReaders(this.db, since);
  }

  pruneEvents(before: number): Promise<number> {
    return pruneEvents(this.db, before);
  }

  oldestDuePending(now: number): Promise<OldestDueRow[]> {
    return oldestDuePending(this.db, now);
  }

  hasWork(queue: string | undefined, now: number): Promise<boolean> {
    return hasWork(this.db, queue, now);
  }

  setPaused(queue: string, paused: boolean, now: number): Promise<void> {
    return setPaused(this.db, queue, paused, now);
  }

  cancel(id: string, now: number): Promise<JobStatus | null> {
    return cancelJob(this.db, id, now);
  }

  retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]> {
    return retryFinished(this.db, target, now);
  }

  keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
    return keyBlockedFailed(this.db, queue, finishedAtMost);
  }

  debounceKeyHolder(id: string): Promise<JobRecord | null> {
    return debounceKeyHolder(this.db, id);
  }

  remove(id: string, now: number): Promise<JobStatus | null> {
    return removeJob(this.db, id, now);
  }

  applyRetention(queue: string, status: FinishedJobStatus, rule: RetentionRule, limit: number): Promise<number> {
    return applyRetention(this.db, queue, status, rule, limit);
  }

  clean(queue: string, statuses: JobStatus[], before: number): Promise<number> {
    return cleanJobs(this.db, queue, statuses, before);
  }

  upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void> {
    return upsertSchedule(this.db, schedule, now);
  }

  promote(id: string, now: number): Promise<PromoteOutcome | null> {
    return promoteJob(this.db, id, now);
  }

  pauseSchedule(queue: string, name: string, now: number): Promise<boolean> {
    return pauseSchedule(this.db, queue, name, now);
  }

  resumeSchedule(queue: string, name: string, nextRunAt: number, now: number): Promise<boolean> {
    return resumeSchedule(this.db, queue, name, nextRunAt, now);
  }

  lastScheduleRun(queue: string, name: string): Promise<JobRecord | null> {
    return lastScheduleRun(this.db, queue, name);
  }

  processorAnnouncements(now: number): Promise<ProcessorAnnouncementRow[]> {
    return processorAnnouncements(this.db, now);
  }

  processRows(since: number): Promise<ProcessRow[]> {
    return processRows(this.db, since);
  }

  runningByWorker(): Promise<WorkerActivityRow[]> {
    return runningByWorker(this.db);
  }

  removeSchedule(queue: string, name: string): Promise<boolean> {
    return removeSchedule(this.db, queue, name);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return listSchedules(this.db);
  }

  dueSchedules(now: number): Promise<ScheduleRecord[]> {
    return dueSchedules(this.db, now);
  }

  enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
    return enqueueOccurrence(this.db, occurrence, now);
  }

  enqueueScheduleRun(queue: string, name: string, runKey: string, job: NewJobRecord, now: number): Promise<string | null> {
    return enqueueScheduleRun(this.db, queue, name, runKey, job, now);
  }

  backup(): Promise<void> {
    return Promise.reject(new BackupNotSupportedError(this.schema));
  }

  /** PostgreSQL reports its own failures statement by statement: no lasting fault state here. */
  get fault(): Error | undefined {
    return undefined;
  }
}
