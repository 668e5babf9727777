import { Logger } from '@nestjs/common';
import { Observable } from 'rxjs';
import { MODULE_DEFAULTS } from '../../module-defaults.constants';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
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
  CallerTransaction,
  WaitedJobs,
  GroupLoad,
} from '../queue-storage.interface';
import { busiestGroups, groupCounts, listGroupJobs } from './sql/groups.sql';
import { InsertedRow, PairingBackend, pairEnqueued } from '../shared/pair-enqueued';
import { vacuumInto } from './sql/backup.sql';
import { claimJobs } from './sql/claim.sql';
import { dueBlobRows, failBlobRow, isBlobInJsonError } from './sql/blob-rows.sql';
import { InvalidStoredDataError } from '../../errors/invalid-stored-data.error';
import { serializeJobError } from '../../utils/error.util';
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
import { appendEvents, getWaitedJobs, hasEventReaders, markEventReader, pruneEvents, readEvents } from './sql/events.sql';
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
import { applyRetention, cleanJobs } from './sql/retention.sql';
import { dueSchedules, enqueueOccurrence, enqueueScheduleRun, listSchedules, removeSchedule, upsertSchedule } from './sql/schedules.sql';
import { SqliteConnection, SqliteConnectionSource } from './sqlite-connection';
import { TransactionStatements, dataSourceOfManager } from '../transactions/transaction-statements';
import { cancelDescendants, childrenOf, flowOf, insertFlow, removeTree } from './sql/flows.sql';
import { sqliteTransactionRunner } from '../transactions/sqlite-transaction';
import { CommitWatch } from '../transactions/commit-watch';
import { keepRolledBackIds } from './sql/sequence.sql';
import { SqliteTransactionWatch } from '../transactions/sqlite-transaction-watch';
import { applySqliteSchema } from './sqlite-schema';
import { explainFacts } from './sql/explain.sql';

/** Whether the DataSource's driver binds parameters cheaply (better-sqlite3; node-sqlite3 does not): see insertJobs. */
function bindsCheaply(source: DataSource): boolean {
  return source.options.type === 'better-sqlite3';
}

/**
 * The SQLite backend: the statements of `sql/` on a `SqliteConnection`. It runs only single, self-contained
 * statements: TypeORM's sqlite driver has one connection, and two interleaved transactions on it corrupt each
 * other (see docs/flows-and-transactions.md). Besides delegating, it tells the connection what its statements did: wrote (for the
 * WAL checkpointer) or made jobs claimable (for the insert hints).
 */
export class SqliteQueueStorage implements QueueStorage {
  private readonly db: SqliteConnection;

  private readonly logger = new Logger('JobQueue');

  /**
   * `migrate` false: boot only checks the schema version (see `applySqliteSchema`); `migrationLockTimeout`: how long
   * boot waits for another process's migration (default the module's).
   */
  constructor(
    source: SqliteConnectionSource,
    private readonly schema: { migrate?: boolean; migrationLockTimeout?: number } = {},
  ) {
    this.db = new SqliteConnection(source);
  }

  get insertHints$(): Observable<void> {
    return this.db.insertHints$;
  }

  initialize(): Promise<void> {
    const wait = {
      timeoutMs: this.schema.migrationLockTimeout ?? MODULE_DEFAULTS.migrationLockTimeout,
      target: `file "${this.db.path}"`,
      logger: this.logger,
    };
    return this.db.open((runner) => applySqliteSchema(runner, this.schema.migrate ?? true, wait));
  }

  close(): Promise<void> {
    return this.db.close();
  }

  async enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    // Jobs written to a deleted or replaced file would be lost at restart, unseen by every other process.
    if (this.db.fault) throw this.db.fault;
    try {
      return pairEnqueued(this.pairing, queue, jobs, await this.insert(queue, jobs, now), now);
    } catch (error) {
      this.db.noteFailure(error);
      throw this.db.fault ?? error;
    }
  }

  get fault(): Error | undefined {
    return this.db.fault;
  }

  openTransactionOf(manager?: EntityManager): CallerTransaction | undefined {
    if (manager === undefined) return this.db.callerTransaction();
    let runner: QueryRunner;
    try {
      runner = sqliteTransactionRunner(manager, this.db.source);
    } catch {
      // Not a transaction that can hold the queue's rows: `enqueueIn` refuses it with the typed error.
      return undefined;
    }
    return SqliteTransactionWatch.of(dataSourceOfManager(manager), keepRolledBackIds).transactionOf(runner);
  }

  afterCommitOf(manager: EntityManager | undefined, callback: () => void): void {
    // Without a manager the rows went into the transaction open on the shared DataSource's one connection, whose
    // runner TypeORM's sqlite drivers hand out for every call (createQueryRunner returns the same one).
    const runner = manager ? sqliteTransactionRunner(manager, this.db.source) : this.db.source.createQueryRunner();
    CommitWatch.of(manager ? dataSourceOfManager(manager) : this.db.source).afterCommit(runner, callback);
  }

  async enqueueIn(manager: EntityManager, queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    if (this.db.fault) throw this.db.fault;
    const runner = sqliteTransactionRunner(manager, this.db.source);
    const statements = new TransactionStatements(runner);
    const pairing: PairingBackend = {
      findByKeys: (keyQueue, keys) => findLiveByKeys(statements, keyQueue, keys),
      insert: async (insertQueue, insertJobsOf, insertNow) => {
        const inserted = await insertJobs(statements, insertQueue, insertJobsOf, insertNow, bindsCheaply(dataSourceOfManager(manager)));
        if (inserted.length > 0) this.afterCommit(manager, runner, inserted);
        return inserted;
      },
    };
    return pairEnqueued(pairing, queue, jobs, await pairing.insert(queue, jobs, now), now);
  }

  async enqueueFlow(nodes: NewFlowNode[], now: number, manager?: EntityManager): Promise<string[]> {
    if (this.db.fault) throw this.db.fault;
    if (manager) {
      const runner = sqliteTransactionRunner(manager, this.db.source);
      const ids = await insertFlow(new TransactionStatements(runner), nodes, now);
      this.afterCommit(
        manager,
        runner,
        ids.map((id) => ({ id })),
      );
      return ids;
    }
    const ids = await insertFlow(this.db.runner, nodes, now);
    this.db.callerTransaction()?.noteIds(ids);
    this.db.inserted();
    this.db.written();
    return ids;
  }

  /**
   * Wakes this process's poller when the caller's transaction commits (its jobs are invisible before), and notes the
   * ids it was given (a rollback gives them back to SQLite's sequence, which must not hand them out again).
   */
  private afterCommit(manager: EntityManager, runner: QueryRunner, inserted: { id: string }[]): void {
    const source = dataSourceOfManager(manager);
    SqliteTransactionWatch.of(source, keepRolledBackIds)
      .transactionOf(runner)
      ?.noteIds(inserted.map((row) => row.id));
    CommitWatch.of(source).afterCommit(runner, () => {
      this.db.inserted();
      this.db.written();
    });
  }

  getFlow(id: string): Promise<FlowRecord | null> {
    return flowOf(this.db.runner, id);
  }

  childrenOf(id: string): Promise<ChildRow[]> {
    return childrenOf(this.db.runner, id);
  }

  cancelDescendants(id: string, now: number): Promise<{ id: string; queue: string }[]> {
    return cancelDescendants(this.db.runner, id, now);
  }

  removeTree(id: string): Promise<RemoveTreeOutcome | null> {
    return removeTree(this.db.runner, id);
  }

  /** The insert statement alone: the rows it inserted, in input order. */
  private async insert(queue: string, jobs: NewJobRecord[], now: number): Promise<InsertedRow[]> {
    const inserted = await insertJobs(this.db.runner, queue, jobs, now, bindsCheaply(this.db.source));
    if (inserted.length > 0) {
      // Made inside the application's open transaction (a borrowed connection): its ids may be given back.
      this.db.callerTransaction()?.noteIds(inserted.map((row) => row.id));
      this.db.inserted();
      this.db.written();
    }
    return inserted;
  }

  /** Backend half of `pairEnqueued`. */
  private readonly pairing: PairingBackend = {
    findByKeys: (queue, keys) => this.findLiveByKeys(queue, keys),
    insert: (queue, jobs, now) => this.insert(queue, jobs, now),
  };

  findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]> {
    return findLiveByKeys(this.db.runner, queue, keys);
  }

  async enqueueKeyed(queue: string, job: NewJobRecord, now: number): Promise<JobRecord> {
    if (this.db.fault) throw this.db.fault;
    const runner = this.db.runner;
    // Each statement may write: the hints and the WAL checkpointer hear of them as of any insert.
    const wrote = <T>(value: T): T => {
      if (value !== null) {
        this.db.inserted();
        this.db.written();
      }
      return value;
    };
    // A new row made inside the application's open transaction: its id is noted as a plain insert's is, so a rollback
    // does not give it to a later job.
    const inserted = (id: string | null): string | null => {
      if (id !== null) this.db.callerTransaction()?.noteIds([id]);
      return wrote(id);
    };
    const backend: KeyedBackend = {
      insertThrottled: async (q, j, at) => inserted(await insertThrottled(runner, q, j, at)),
      keyHolder: (q, key, at) => keyHolder(runner, q, key, at),
      replaceDebounced: async (q, j, at) => wrote(await replaceDebounced(runner, q, j, at)),
      insertDebounced: async (q, j, at) => inserted(await insertDebounced(runner, q, j, at)),
    };
    let first = true;
    return enqueueKeyed(backend, queue, job, () => (first ? ((first = false), now) : Date.now()));
  }

  declareDeadLetters(queues: { queue: string; deadLetter: string | null }[], now: number): Promise<void> {
    return declareDeadLetters(this.db.background, queues, now);
  }

  async redrive(deadLetterQueue: string, limit: number, now: number): Promise<number> {
    const moved = await redrive(this.db.runner, deadLetterQueue, limit, now);
    if (moved > 0) {
      this.db.inserted();
      this.db.written();
    }
    return moved;
  }

  deadLetterQueues(): Promise<{ queue: string; sources: string[]; count: number }[]> {
    return deadLetterQueues(this.db.runner);
  }

  snooze(
    ref: AttemptRef,
    workerId: string,
    snooze: { runAt: number; delay: number },
    maxSnoozes: number,
    now: number,
  ): Promise<'snoozed' | 'exhausted' | 'lost'> {
    const { runAt, delay } = snooze;
    return snoozeJob(this.db.background, ref, workerId, runAt, delay, MAX_JOB_LOG_LINES, maxSnoozes, now);
  }

  async claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]> {
    // A deleted, replaced or corrupted file: claim nothing (said once, by the connection), not an error per round.
    if (this.db.fault) return [];
    let jobs: JobRecord[];
    try {
      jobs = await claimJobs(this.db.background, requests, workerId, now, leaseDuration).catch(async (error: unknown) => {
        // A row another tool wrote with a BLOB where the claim packs JSON fails every claim while it is due: fail
        // that row, then claim again. Checked here, once it happened, so the claim itself pays nothing for it.
        if (!isBlobInJsonError(error) || !(await this.failBlobRows(requests, now))) throw error;
        return claimJobs(this.db.background, requests, workerId, now, leaseDuration);
      });
    } catch (error) {
      this.db.noteFailure(error);
      throw error;
    }
    if (jobs.length > 0) this.db.written();
    return jobs;
  }

  /**
   * Fails, with InvalidStoredDataError, the due rows of the claimed queues that hold a BLOB in a column the claim
   * packs, each logged with its id and queue; whether there was one.
   */
  private async failBlobRows(requests: ClaimRequest[], now: number): Promise<boolean> {
    const rows = await dueBlobRows(this.db.background, [...new Set(requests.map((request) => request.queue))], now);
    for (const row of rows) {
      const message = `Stored column${row.columns.length > 1 ? 's' : ''} ${row.columns.join(', ')} hold${row.columns.length > 1 ? '' : 's'} a BLOB, which this library never writes: the row cannot run`;
      const failed = await failBlobRow(
        this.db.background,
        row.id,
        serializeJobError({ name: InvalidStoredDataError.name, message, attempt: 0 }),
        now,
      );
      if (failed) this.logger.error(`Job ${row.id} (queue ${row.queue}): ${message}; failed it with ${InvalidStoredDataError.name}`);
    }
    return rows.length > 0;
  }

  declareLimits(limiters: QueueLimiterRecord[], now: number): Promise<void> {
    return declareLimits(this.db.background, limiters, now);
  }

  async rateLimit(queue: string, ref: AttemptRef, workerId: string, until: number, now: number): Promise<boolean> {
    // The pause first: a crash before the hand-back leaves the job running until its lease expires, never claimable
    // again while the queue should be paused.
    await pauseUntil(this.db.background, queue, until, now);
    // Recorded in the job's run history as rate limited, not as a hand-back.
    return (await releaseJobs(this.db.background, [ref], workerId, now, 'rate-limited')) > 0;
  }

  limitedUntil(queues: string[], now: number): Promise<Map<string, number>> {
    return limitedUntil(this.db.background, queues, now);
  }

  async completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
    if (completions.length === 0) return new Set();
    const completed = await completeJobs(this.db.background, completions, workerId, now);
    this.db.written();
    return completed;
  }

  retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean> {
    return retryJob(this.db.background, ref, workerId, error, runAt, now);
  }

  fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
    return failJob(this.db.background, ref, workerId, error, now);
  }

  updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean> {
    return updateProgress(this.db.runner, ref, workerId, progress, now);
  }

  appendLog(ref: AttemptRef, workerId: string, line: string, maxLines: number, now: number): Promise<boolean> {
    return appendLog(this.db.runner, ref, workerId, line, maxLines, now);
  }

  updateData(ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean> {
    return updateData(this.db.runner, ref, workerId, data, now);
  }

  getJobLogs(id: string): Promise<string | null | undefined> {
    return getJobLogs(this.db.runner, id);
  }

  async removeFinishedJobs(ids: string[], status: 'completed' | 'failed'): Promise<number> {
    if (ids.length === 0) return 0;
    return removeFinishedJobs(this.db.background, ids, status);
  }

  announceProcess(announcement: ProcessAnnouncement, now: number, forgetBefore: number): Promise<void> {
    return announceProcess(this.db.background, announcement, now, forgetBefore);
  }

  endProcess(workerId: string, startedAt: number, now: number): Promise<void> {
    return endProcess(this.db.background, workerId, startedAt, now);
  }

  announceProcessors(queues: string[], until: number, now: number): Promise<void> {
    return announceProcessors(this.db.background, queues, until, now);
  }

  processedQueues(now: number): Promise<string[]> {
    return processedQueues(this.db.runner, now);
  }

  unprocessedQueues(dueBy: number, now: number): Promise<OldestDueRow[]> {
    return unprocessedQueues(this.db.background, dueBy, now);
  }

  async findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]> {
    if (refs.length === 0) return [];
    return findCancelled(this.db.background, refs, workerId);
  }

  async release(refs: AttemptRef[], workerId: string, now: number): Promise<number> {
    if (refs.length === 0) return 0;
    return releaseJobs(this.db.background, refs, workerId, now);
  }

  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number> {
    return extendLeases(this.db.background, refs, workerId, leaseDuration, now);
  }

  recoverExpiredLeases(now: number, jitterWindow: number, skip: readonly string[] = []): Promise<RecoveredJob[]> {
    return recoverExpiredLeases(this.db.background, now, jitterWindow, skip);
  }

  recoverExpiredLease(id: string, now: number, jitterWindow: number): Promise<RecoveredJob | null> {
    return recoverExpiredLease(this.db.background, id, now, jitterWindow);
  }

  findExpiredLeases(now: number, skip: readonly string[]): Promise<ExpiredLease[]> {
    return findExpiredLeases(this.db.background, now, skip);
  }

  getJob(id: string): Promise<JobRecord | null> {
    return getJob(this.db.runner, id);
  }

  explainFacts(id: string, now: number): Promise<ExplainFacts | null> {
    return explainFacts(this.db.runner, id, now);
  }

  listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listJobs(this.db.runner, queue, query);
  }

  jobsByKey(queue: string, key: string, limit: number): Promise<JobRecord[]> {
    return jobsByKey(this.db.runner, queue, key, limit);
  }

  getCounts(queue?: string, name?: string): Promise<CountRow[]> {
    return countJobs(this.db.runner, queue, name);
  }

  groupCounts(queue: string, group: string, name?: string): Promise<CountRow[]> {
    return groupCounts(this.db.runner, queue, group, name);
  }

  listGroupJobs(queue: string, group: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listGroupJobs(this.db.runner, queue, group, query);
  }

  busiestGroups(queue: string, limit: number): Promise<GroupLoad[]> {
    return busiestGroups(this.db.runner, queue, limit);
  }

  getPausedQueues(): Promise<string[]> {
    return pausedQueues(this.db.runner);
  }

  queueKnown(queue: string): Promise<boolean> {
    return queueKnown(this.db.runner, queue);
  }

  recentFailures(queue: string, limit: number): Promise<FailureRow[]> {
    return recentFailures(this.db.runner, queue, limit);
  }

  finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]> {
    return finishedSince(this.db.runner, since, limit);
  }

  getWaitedJobs(ids: string[]): Promise<WaitedJobs> {
    return getWaitedJobs(this.db.background, ids);
  }

  appendEvents(batch: StoredEventBatch): Promise<void> {
    return appendEvents(this.db.background, batch);
  }

  readEvents(afterId: string | null, limit: number, origin: string): Promise<{ batches: StoredEventBatch[]; cursor: string }> {
    return readEvents(this.db.background, afterId, limit, origin);
  }

  markEventReader(origin: string, now: number): Promise<void> {
    return markEventReader(this.db.background, origin, now);
  }

  hasEventReaders(since: number): Promise<boolean> {
    return hasEventReaders(this.db.background, since);
  }

  pruneEvents(before: number): Promise<number> {
    return pruneEvents(this.db.background, before);
  }

  oldestDuePending(now: number): Promise<OldestDueRow[]> {
    return oldestDuePending(this.db.runner, now);
  }

  hasWork(queue: string | undefined, now: number): Promise<boolean> {
    return hasWork(this.db.runner, queue, now);
  }

  setPaused(queue: string, paused: boolean, now: number): Promise<void> {
    return setPaused(this.db.runner, queue, paused, now);
  }

  cancel(id: string, now: number): Promise<JobStatus | null> {
    return cancelJob(this.db.runner, id, now);
  }

  async retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]> {
    const ids = await retryFinished(this.db.runner, target, now);
    if (ids.length > 0) this.db.inserted();
    return ids;
  }

  keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
    return keyBlockedFailed(this.db.runner, queue, finishedAtMost);
  }

  debounceKeyHolder(id: string): Promise<JobRecord | null> {
    return debounceKeyHolder(this.db.runner, id);
  }

  remove(id: string, _now: number): Promise<JobStatus | null> {
    // No cross-process announcement on SQLite: waits elsewhere find the job gone at their next poll.
    return removeJob(this.db.runner, id);
  }

  applyRetention(queue: string, status: FinishedJobStatus, rule: RetentionRule, limit: number): Promise<number> {
    return applyRetention(this.db.background, queue, status, rule, limit);
  }

  clean(queue: string, statuses: JobStatus[], before: number): Promise<number> {
    return cleanJobs(this.db.runner, queue, statuses, before);
  }

  upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void> {
    return upsertSchedule(this.db.runner, schedule, now);
  }

  promote(id: string, now: number): Promise<PromoteOutcome | null> {
    return promoteJob(this.db.runner, id, now);
  }

  pauseSchedule(queue: string, name: string, now: number): Promise<boolean> {
    return pauseSchedule(this.db.runner, queue, name, now);
  }

  resumeSchedule(queue: string, name: string, nextRunAt: number, now: number): Promise<boolean> {
    return resumeSchedule(this.db.runner, queue, name, nextRunAt, now);
  }

  lastScheduleRun(queue: string, name: string): Promise<JobRecord | null> {
    return lastScheduleRun(this.db.runner, queue, name);
  }

  processorAnnouncements(now: number): Promise<ProcessorAnnouncementRow[]> {
    return processorAnnouncements(this.db.runner, now);
  }

  processRows(since: number): Promise<ProcessRow[]> {
    return processRows(this.db.runner, since);
  }

  runningByWorker(): Promise<WorkerActivityRow[]> {
    return runningByWorker(this.db.runner);
  }

  removeSchedule(queue: string, name: string): Promise<boolean> {
    return removeSchedule(this.db.runner, queue, name);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return listSchedules(this.db.runner);
  }

  dueSchedules(now: number): Promise<ScheduleRecord[]> {
    return dueSchedules(this.db.background, now);
  }

  async enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
    const inserted = await enqueueOccurrence(this.db.background, occurrence, now);
    if (inserted) this.db.inserted();
    return inserted;
  }

  async enqueueScheduleRun(queue: string, name: string, runKey: string, job: NewJobRecord, now: number): Promise<string | null> {
    const id = await enqueueScheduleRun(this.db.runner, queue, name, runKey, job, now);
    if (id !== null) this.db.inserted();
    return id;
  }

  backup(destination: string): Promise<void> {
    return vacuumInto(this.db.runner, destination);
  }
}
