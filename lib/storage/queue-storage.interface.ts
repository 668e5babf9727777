import type { Observable } from 'rxjs';
import type { EntityManager } from 'typeorm';
import { FinishedJobStatus, JobStatus } from '../interfaces/job-info.interface';

/** A job to insert, already validated and serialised. Times are epoch ms. */
export interface NewJobRecord {
  data: string;
  priority: number;
  runAt: number;
  maxAttempts: number;
  backoff: string | null;
  timeout: number | null;
  key: string | null;
  /** The job's name inside its queue, if it was given one (absent: none). */
  name?: string | null;
  /** Bit 1: delete once completed; bit 2: once failed; null or absent: neither (the queue's retention applies). */
  removeOn?: number | null;
}

/** What a flow parent does when a child ends failed or cancelled: fail too, or run once the others are done. */
export type ChildFailurePolicy = 'fail' | 'continue';

/**
 * One job of a flow to insert. Nodes come parents first: `parentIndex` is the index of the node's parent among
 * the nodes (-1 for the root). A node with children has a policy and a run_at already pushed by FLOW_WAIT_OFFSET.
 */
export interface NewFlowNode {
  queue: string;
  job: NewJobRecord;
  parentIndex: number;
  onChildFailure: ChildFailurePolicy | null;
}

/** A job's place in a flow. */
export interface FlowRecord {
  parentId: string | null;
  /** Set on jobs added with children. */
  onChildFailure: ChildFailurePolicy | null;
  /** Its children, oldest first. */
  children: { id: string; status: JobStatus }[];
}

/** A child of a job, with its result (JSON) once completed. */
export interface ChildRow {
  id: string;
  queue: string;
  status: JobStatus;
  result: string | null;
}

/** A stored job row, in storage-neutral form. Times are epoch ms. */
export interface JobRecord {
  id: string;
  queue: string;
  status: JobStatus;
  data: string;
  priority: number;
  runAt: number;
  attempts: number;
  maxAttempts: number;
  backoff: string | null;
  timeout: number | null;
  key: string | null;
  /** Absent on records built before names existed: read as null. */
  name?: string | null;
  /** See `NewJobRecord.removeOn`. */
  removeOn?: number | null;
  lockedBy: string | null;
  leaseUntil: number | null;
  result: string | null;
  error: string | null;
  progress: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
}

/** How many due jobs one queue may take in a claim. */
export interface ClaimRequest {
  queue: string;
  limit: number;
  /** The queue has a rate limiter (declared with `declareLimits`): the claim takes no more than its window allows. */
  rateLimited?: boolean;
  /** The claim leaves at most this many of the queue's jobs running across all processes. */
  globalConcurrency?: number;
}

/** A queue's rate limiter as the storage keeps it for every process. */
export interface QueueLimiterRecord {
  queue: string;
  /** Most jobs started per window, or null for a queue that only has a global concurrency. */
  max: number | null;
  /** The window in ms, or null with `max`. */
  duration: number | null;
}

/** Identifies one attempt of one job: writes are fenced by it so a stale attempt cannot overwrite a newer one. */
export interface AttemptRef {
  id: string;
  attempt: number;
}

/** One attempt's successful outcome: its result as JSON (null for none). */
export interface Completion {
  ref: AttemptRef;
  result: string | null;
}

/** A job whose lease expired, after recovery. */
export interface RecoveredJob {
  id: string;
  queue: string;
  status: 'pending' | 'failed';
  attempts: number;
  /** When a requeued job is next due (epoch ms): recovery spreads these out (see `recoverExpiredLeases`). */
  runAt: number;
}

/** A running job whose lease expired, before recovery. */
export interface ExpiredLease {
  id: string;
  queue: string;
}

/** Number of jobs per queue and status. */
export interface CountRow {
  queue: string;
  status: JobStatus;
  count: number;
}

/** Filter and page of `listJobs`. */
export interface ListJobsQuery {
  status?: JobStatus;
  /** Only jobs of this name. */
  name?: string;
  limit: number;
  offset: number;
}

/** How many finished jobs of one status a queue keeps; both bounds apply when both are set. */
export interface RetentionRule {
  /** Keep at most this many, newest by finish time. */
  maxCount?: number;
  /** Delete those finished before this epoch ms. */
  finishedBefore?: number;
}

/** A recurring job definition as stored. */
export interface ScheduleRecord {
  queue: string;
  name: string;
  cron: string | null;
  every: number | null;
  timezone: string | null;
  data: string;
  /** JSON of the JobOptions each occurrence is enqueued with, or null. */
  options: string | null;
  /** Epoch ms of the next occurrence to enqueue. */
  nextRunAt: number;
}

/** One occurrence of a schedule to enqueue. */
export interface ScheduleOccurrence {
  schedule: ScheduleRecord;
  /** The occurrence's own time: identifies it, so it is enqueued once whoever tries. */
  occurrenceAt: number;
  job: NewJobRecord;
  /** The schedule's next occurrence after this one. */
  nextRunAt: number;
}

/** A finished job's timings, for metrics. */
export interface FinishedJobTiming {
  queue: string;
  status: FinishedJobStatus;
  /** From due (run_at) to start of the last attempt, ms. */
  waitMs: number | null;
  /** From start of the last attempt to finish, ms. */
  runMs: number | null;
  finishedAt: number;
}

/**
 * A batch of job events of one process as stored for the others: ONE row per batch, so publishing costs one small
 * row per flush rather than one per event. Times are epoch ms.
 */
export interface StoredEventBatch {
  /** Assigned by the database; increasing in the order batches become visible. Absent on input. */
  id?: string;
  /** The publishing process (its instance id), so it can skip its own events when reading. */
  origin: string;
  createdAt: number;
  /** JSON array of encoded events (see `events/event-codec.ts`). */
  events: string;
}

/** Oldest due pending job of a queue. */
export interface OldestDueRow {
  queue: string;
  runAt: number;
}

/** What a look at waited jobs found (`QueueStorage.getWaitedJobs`). */
export interface WaitedJobs {
  /** The waited jobs that are completed, failed or cancelled. */
  finished: JobRecord[];
  /** The waited ids no job has any more (removed by an operator, `clean` or retention), or never had. */
  gone: string[];
}

/**
 * The caller's transaction a job was written in, as far as the storage follows it (SQLite). A job of a transaction
 * that rolled back never existed, and on SQLite its id may be given again: its handle must stop naming it.
 */
export interface TransactionFate {
  /** True once the transaction rolled back. */
  readonly rolledBack: boolean;
  /** Calls `listener` once, when the transaction rolls back (never when it commits); the result stops listening. */
  onRollback(listener: () => void): () => void;
}

/**
 * Everything the queue needs from a database. The poller, workers, producer and admin only talk to
 * this; a backend keeps all of its SQL behind it. Every method is one atomic statement unless it says
 * otherwise, and none leaves a transaction open.
 */
export interface QueueStorage {
  /** Hints that jobs were inserted (by this process, or by anyone where the database can tell). Never authoritative. */
  readonly insertHints$: Observable<void>;
  /**
   * Where the database can tell (PostgreSQL NOTIFY): ids of jobs any process just finished (completed, failed or
   * cancelled), or null for "some jobs, unknown which". A hint: waiters re-check the database. Absent on SQLite.
   * Available once `initialize` resolved.
   */
  readonly finishHints$?: Observable<string[] | null>;
  /**
   * Where the database can tell (PostgreSQL NOTIFY): the origin of a process that just published cluster events, or
   * null for "maybe anyone". Absent on SQLite.
   */
  readonly eventHints$?: Observable<string | null>;
  /** Opens the database if owned, sets it up and creates the schema idempotently. */
  initialize(): Promise<void>;
  /** Releases what `initialize` opened. */
  close(): Promise<void>;

  // --- producing and processing ---
  /**
   * Inserts jobs of one queue atomically and returns one record per input, in input order. An input
   * whose key is taken by a pending or running job returns that job instead.
   */
  enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
  /**
   * `enqueue` written by the caller's TypeORM transaction (`manager` of `dataSource.transaction()`): invisible until
   * it commits, gone if it rolls back; pollers are woken at commit. Throws UnsupportedTransactionError (writing
   * nothing) when that transaction cannot write this queue's tables atomically (another database, another file).
   */
  enqueueIn(manager: EntityManager, queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
  /** Inserts a flow's nodes in one atomic write (in `manager`'s transaction when given); their ids, in node order. */
  enqueueFlow(nodes: NewFlowNode[], now: number, manager?: EntityManager): Promise<string[]>;
  /**
   * Where the storage shares one connection with the application (SQLite on a borrowed DataSource): the open
   * transaction that `manager`'s writes, or without one the writes of a call made now (in this async context), run
   * inside. Undefined when there is none: the call commits on its own. Absent where writes never join a caller's
   * transaction unasked (PostgreSQL's pool) and ids are never given twice.
   */
  openTransactionOf?(manager?: EntityManager): TransactionFate | undefined;
  /**
   * How many inserts of one queue the producer's group commit keeps in flight at once (default 1): one where the
   * database has a single writer, more where statements run side by side and their commits' disk flushes overlap.
   */
  readonly parallelInserts?: number;
  /**
   * Atomically takes up to each request's limit of due pending jobs of queues that are not paused,
   * marking them running for `workerId` for `leaseDuration` ms. Where a statement can wait for a lock (SQLite's
   * busy timeout), the lease is measured from when it runs, not from `now`, so the wait does not eat the lease.
   */
  claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]>;
  /**
   * Records the limiters of queues this process runs, for every process: each claim of a rate-limited queue counts
   * against the window kept with it. Creates the queue's row, which a limited claim also relies on.
   */
  declareLimits(limiters: QueueLimiterRecord[], now: number): Promise<void>;
  /**
   * Stops claims of `queue`, by every process, until `until` (epoch ms; an earlier pause already in place is kept
   * when longer), and hands `ref` back to pending without counting its attempt. Two statements on SQLite (the pause
   * first: a crash between them leaves the job to lease recovery); false when the job was no longer owned.
   */
  rateLimit(queue: string, ref: AttemptRef, workerId: string, until: number, now: number): Promise<boolean>;
  /**
   * Of these queues, those that cannot be claimed now because their rate window is used up or a RateLimitError
   * paused them, with the epoch ms when they can be claimed again. Read by the poller after a rate-limited queue
   * came back short, so that it waits for the window's end instead of polling.
   */
  limitedUntil(queues: string[], now: number): Promise<Map<string, number>>;
  /**
   * Marks many attempts completed in one statement; returns the ids of those this worker still owned
   * (the others were cancelled or lost their lease meanwhile).
   */
  completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>>;
  /** Puts an attempt back to pending until `runAt`, with its error; false when no longer owned. */
  retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean>;
  /** Marks an attempt failed for good; false when no longer owned. */
  fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean>;
  /** Stores progress of a running attempt; false when no longer owned. */
  updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean>;
  /**
   * Appends a line to a running attempt's job log, keeping at most `maxLines` (the oldest go); false when no longer
   * owned.
   */
  appendLog(ref: AttemptRef, workerId: string, line: string, maxLines: number, now: number): Promise<boolean>;
  /** Replaces a running attempt's job data (JSON); false when no longer owned. */
  updateData(ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean>;
  /** Hands attempts back to pending as if they never started; returns how many were still owned. */
  release(refs: AttemptRef[], workerId: string, now: number): Promise<number>;
  /**
   * Extends, in one statement, by `leaseDuration` ms (measured like `claim`'s), the leases of these jobs of
   * `workerId`: only those, so a running row under the same worker id that this process does not hold (a crashed
   * process with the same fixed `workerId`) expires.
   */
  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number>;
  /** Of the given attempts of `workerId`, those that an operator cancelled meanwhile. */
  findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]>;
  /**
   * Requeues (or fails, when out of attempts) running jobs whose lease ended before `now`. Each requeued job is
   * due at `now` plus its own random delay below `jitterWindow` ms, so jobs that were claimed together when their
   * process died are not claimed together again: one that kills its process every time then does not take the
   * same neighbour down with it on every attempt. The jobs whose ids are in `skip` are left as they are.
   */
  recoverExpiredLeases(now: number, jitterWindow: number, skip?: readonly string[]): Promise<RecoveredJob[]>;
  /**
   * `recoverExpiredLeases` for one job, for when the statement over all of them fails: null when the job is not
   * running under an expired lease (any more).
   */
  recoverExpiredLease(id: string, now: number, jitterWindow: number): Promise<RecoveredJob | null>;
  /** The running jobs whose lease ended before `now`, but those in `skip`, oldest first. */
  findExpiredLeases(now: number, skip: readonly string[]): Promise<ExpiredLease[]>;

  // --- inspection ---
  /** One job, or null. */
  getJob(id: string): Promise<JobRecord | null>;
  /** A job's stored log (a JSON array of lines, or null for none); undefined when there is no such job. */
  getJobLogs(id: string): Promise<string | null | undefined>;
  /** Jobs of a queue, newest first. */
  listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]>;
  /** Jobs of a queue with this unique key, in any status, newest first, at most `limit`. */
  jobsByKey(queue: string, key: string, limit: number): Promise<JobRecord[]>;
  /** A job's parent and children, or null when there is no such job. */
  getFlow(id: string): Promise<FlowRecord | null>;
  /** The children of a job, with their results. */
  childrenOf(id: string): Promise<ChildRow[]>;
  /** Job counts per queue and status, optionally of one queue, and within it of one job name (`name` needs `queue`). */
  getCounts(queue?: string, name?: string): Promise<CountRow[]>;
  /** Queues currently paused. */
  getPausedQueues(): Promise<string[]>;
  /**
   * Whether the database knows the queue: it has a job of it (any status), a row of its state (paused or resumed,
   * declared limits, a processor's announcement, live or lapsed) or a schedule. One statement.
   */
  queueKnown(queue: string): Promise<boolean>;
  /** Timings of jobs finished at or after `since`, newest first, at most `limit`. */
  finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]>;
  /** Per queue, the run time of its oldest due pending job (queues without one are absent). */
  oldestDuePending(now: number): Promise<OldestDueRow[]>;
  /**
   * Whether a job is running, or pending and due by `now` in a queue not paused; of one queue, or of every queue.
   * One statement: the answer is of one moment, whatever moves between pending and running meanwhile.
   */
  hasWork(queue: string | undefined, now: number): Promise<boolean>;

  /**
   * Of these jobs, those that are completed, failed or cancelled, and the ids no job has (removed, or never there),
   * in one statement whatever their number. Ids that cannot name a job are left out of both.
   */
  getWaitedJobs(ids: string[]): Promise<WaitedJobs>;

  // --- cluster events ---
  /** Appends one batch of events to the shared event log (one row, one statement). */
  appendEvents(batch: StoredEventBatch): Promise<void>;
  /**
   * Batches of other origins than `origin` after `afterId` (oldest first, at most `limit`);
   * `afterId` null reads none and returns the cursor to start from.
   */
  readEvents(afterId: string | null, limit: number, origin: string): Promise<{ batches: StoredEventBatch[]; cursor: string }>;
  /** Deletes batches created before `before`, and reader heartbeats older than that; returns how many batches. */
  pruneEvents(before: number): Promise<number>;
  /** Records that `origin` reads cluster events (a heartbeat). */
  markEventReader(origin: string, now: number): Promise<void>;
  /**
   * Where finished jobs are announced (`finishHints$`): renews the shared heartbeat of waiting processes, without
   * which no announcement is sent (so the hot path pays nothing while nobody waits). Absent on SQLite.
   */
  markFinishWaiters?(now: number): Promise<void>;
  /** Whether any process left a reader heartbeat at or after `since`. */
  hasEventReaders(since: number): Promise<boolean>;

  // --- control ---
  /** Pauses or resumes a queue for every process sharing the database. */
  setPaused(queue: string, paused: boolean, now: number): Promise<void>;
  /**
   * Cancels a pending or running job. Returns the job's status before the call, or null when there is no
   * such job; only `pending` and `running` jobs change.
   */
  cancel(id: string, now: number): Promise<JobStatus | null>;
  /**
   * Puts failed or cancelled jobs back to pending with a fresh set of attempts: the given ids, or all of a
   * queue's. A flow parent with children still pending or running waits for them again (decided in the same
   * statement, against children ending concurrently). Returns the ids that changed.
   */
  retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]>;
  /** Live (pending or running) jobs of `queue` holding these keys. */
  findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]>;
  /** Failed jobs of `queue`, finished no later than `finishedAtMost`, whose key a live job holds (so a retry skips them). */
  keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]>;
  /** Cancels every live descendant of a job; returns those that were running (their owners must be told). */
  cancelDescendants(id: string, now: number): Promise<{ id: string; queue: string }[]>;
  /**
   * Deletes a job and every descendant in one atomic decision: all of them, or none while one of them runs (no
   * claim can fall between the check and the deletes). Null when there is no such job.
   */
  removeTree(id: string): Promise<RemoveTreeOutcome | null>;
  /**
   * Deletes a job that is not running. Returns its status before, or null when there is no such job. Where finished
   * jobs are announced, the deletion is announced the same way (checked against the waiters' heartbeat at `now`), so
   * a wait for the job anywhere learns at once that it is gone.
   */
  remove(id: string, now: number): Promise<JobStatus | null>;
  /** Deletes the given jobs that are (still) in `status` (per-job removeOnComplete / removeOnFail). Returns how many. */
  removeFinishedJobs(ids: string[], status: 'completed' | 'failed'): Promise<number>;
  /** Applies a retention rule to one queue's finished jobs of one status, deleting at most `limit`. */
  applyRetention(queue: string, status: FinishedJobStatus, rule: RetentionRule, limit: number): Promise<number>;
  /** Deletes a queue's jobs of the given statuses finished (or, for pending, created) before `before`. Returns how many. */
  clean(queue: string, statuses: JobStatus[], before: number): Promise<number>;

  // --- which queues are processed, cluster-wide ---
  /**
   * Records, in one statement whatever the number of queues, that this process has processors for `queues` until
   * `until` (epoch ms); renewed periodically, so a process that died stops counting once its announcement lapses.
   */
  announceProcessors(queues: string[], until: number, now: number): Promise<void>;
  /** Queues some process announced a processor for, still valid at `now`. */
  processedQueues(now: number): Promise<string[]>;
  /**
   * Queues with pending jobs due by `dueBy` and no processor announced at `now`, each with the due time of one such
   * job (the first in claim order): one index seek per queue, whatever the backlog.
   */
  unprocessedQueues(dueBy: number, now: number): Promise<OldestDueRow[]>;

  // --- recurring jobs ---
  /** Creates or replaces a schedule. */
  upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void>;
  /** Deletes a schedule; false when there was none. */
  removeSchedule(queue: string, name: string): Promise<boolean>;
  /** Every schedule. */
  listSchedules(): Promise<ScheduleRecord[]>;
  /** Schedules whose next occurrence is due at `now`. */
  dueSchedules(now: number): Promise<ScheduleRecord[]>;
  /**
   * Enqueues one occurrence exactly once across all processes (a unique index on the occurrence decides),
   * then advances the schedule if nobody else did. May be two statements: a crash between them is repaired
   * by the next attempt, which finds the occurrence already enqueued. True when this call inserted the job.
   */
  enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean>;

  // --- operations ---
  /**
   * Set when the storage can no longer be used safely until a restart (SQLite: the file was deleted, replaced or
   * found corrupted): the poller then claims nothing, producers get this error and health reports it.
   */
  readonly fault: Error | undefined;
  /** Writes a consistent copy of the live database to a new file (SQLite); PostgreSQL throws BackupNotSupportedError. */
  backup(destination: string): Promise<void>;
}

/** A failed job that cannot be retried while another live job holds its key. */
export interface KeyBlockedJob {
  id: string;
  key: string;
  /** The live job holding the key. */
  holderId: string;
}

/** What `removeTree` did: deleted the job and its descendants (how many rows), or nothing because `running` runs. */
export type RemoveTreeOutcome = { removed: number } | { running: string };
