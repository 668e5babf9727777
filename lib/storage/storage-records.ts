/** The records the storage reads and writes, in storage-neutral form (the role interfaces in `roles/` use them). */
import { FinishedJobStatus, JobStatus } from '../interfaces/job-info.interface';
import type { JobOrderBy } from '../interfaces/queue-info.interface';

/** An order of `listJobs` other than the default (id, newest first); which read serves it: `shared/job-sort.ts`. */
export interface JobSort {
  by: JobOrderBy;
  descending: boolean;
}

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
  /** The job's group (`JobOptions.group`), if it was given one (absent: none). */
  group?: string | null;
  /** JSON of the W3C trace context it was added under (telemetry/trace-context.ts); null or absent: none. */
  traceContext?: string | null;
  /** Throttle (`keyTtl`): the key stays taken until then (epoch ms), whatever the job's status. Absent: no window. */
  keyUntil?: number | null;
  /** Debounce: an add of the same key replaces this job while it has not started. Absent: false. */
  debounce?: boolean;
  /** The ids of the jobs it waits for (`dependsOn`); null or absent: none. */
  dependsOn?: string[] | null;
  /** With `dependsOn`: what a dependency that did not complete does to it. */
  onDependencyFailure?: ChildFailurePolicy | null;
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

/**
 * One job of a graph added in one call (`addGraph`), in an order where every job comes after the jobs of the call it
 * depends on. `job.dependsOn` holds the ids of jobs that existed before the call; `refs` the positions, in this
 * order, of the call's own jobs it depends on (each smaller than its own).
 */
export interface NewGraphNode {
  queue: string;
  job: NewJobRecord;
  refs: number[];
}

/** A job linked to another by `dependsOn`, as the dashboard's graph shows it: `removed` (and no queue) once deleted. */
export interface JobLinkRow {
  id: string;
  queue: string | null;
  name: string | null;
  status: JobStatus | 'removed';
}

/** Up to a limit of the jobs one job depends on and of the jobs that depend on it, oldest first, with their totals. */
export interface JobLinksRecord {
  dependencies: JobLinkRow[];
  dependencyCount: number;
  dependents: JobLinkRow[];
  dependentCount: number;
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
  /** See `NewJobRecord.group`. Absent on records built before groups existed: read as null. */
  group?: string | null;
  /** See `NewJobRecord.traceContext`. */
  traceContext?: string | null;
  /** A dead letter's origin: JSON `{ queue, jobId, error }` (error: the stored error text). Absent or null: none. */
  origin?: string | null;
  /** Times the handler snoozed it (`SnoozeError`). Absent: 0. */
  snoozes?: number;
  /**
   * Its run history: JSON array of `StoredRun` (storage/shared/run-history.ts). Read by `getJob` only, and set only
   * when the job has one: absent on records of listings and claims.
   */
  runs?: string | null;
  /**
   * How many jobs the batch handler call that runs (or ran, to its completion or cancel) the current attempt held.
   * Read by `getJob` only, and set only for such an attempt.
   */
  runBatch?: number;
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
  /**
   * The queue's jobs carry groups: the claim serves groups in turn (a group's next job after every other group's
   * first), and leaves at most `groupConcurrency` (when set) of one group's jobs running across all processes.
   */
  grouped?: boolean;
  /** With `grouped`: most running jobs of one group across all processes. */
  groupConcurrency?: number;
  /**
   * With `grouped`: the queue has a group limiter (declared with `declareLimits`): the claim takes no more of a group
   * than its window allows, and counts what it took in that window.
   */
  groupRateLimited?: boolean;
  /**
   * With `grouped`: where the claim's walk of the queue's groups starts (after this group, wrapping around), so a
   * bounded window of groups moves along round after round. Set by the poller (`GroupClaimCursors`), which keeps each grouped queue's cursor.
   */
  groupAfter?: string;
}

/** A queue's rate limiter as the storage keeps it for every process. */
export interface QueueLimiterRecord {
  queue: string;
  /** Most jobs started per window, or null for a queue that only has a global concurrency. */
  max: number | null;
  /** The window in ms, or null with `max`. */
  duration: number | null;
  /** Most jobs of one group started per group window, or null when the queue has no group limiter (absent: null). */
  groupMax?: number | null;
  /** The group window in ms, or null with `groupMax`. */
  groupDuration?: number | null;
}

/** The limits kept for a queue for every process (declared by its processors), and when it opens again if limited now. */
export interface StoredQueueLimits {
  /** The queue-wide limiter (`limiter`), or null. */
  max: number | null;
  duration: number | null;
  /** The per-group limiter (`groupLimiter`), or null. */
  groupMax: number | null;
  groupDuration: number | null;
  /** The end of a RateLimitError pause or of a used-up rate window, whichever is later; 0 when not limited now. */
  limitedUntil: number;
}

/** Identifies one attempt of one job: writes are fenced by it so a stale attempt cannot overwrite a newer one. */
export interface AttemptRef {
  id: string;
  attempt: number;
  /**
   * When its handler was given the job (epoch ms), once it was: the claim leaves `started_at` unset, and the write
   * that ends the attempt records this start unless an earlier write (`markStarted`) did.
   */
  startedAt?: number;
  /**
   * The size of the batch handler call the attempt runs in, once that call began; unset for a single-job handler (and
   * for a batch job not called yet). Every write that records the start or ends the attempt stores it with the run
   * (`JobRun.batchSize`): the size costs no statement of its own.
   */
  batch?: number;
}

/** One attempt's successful outcome: its result as JSON (null for none). */
export interface Completion {
  ref: AttemptRef;
  result: string | null;
  /**
   * Retention keeps nothing of this job once it completed (its own `removeOnComplete: true`, or its queue's retention
   * keeps no completed job): the completion deletes its row instead of marking it completed, unless something still
   * reads the finished row (see `completeJobs` of each backend), in which case it is marked completed as any other.
   */
  remove?: boolean;
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
  /**
   * A status, or `claimed`: of the queue's running rows, those claimed ahead of a free slot whose handler has not
   * started (no `started_at`). They are counted in the `running` row too; the reader takes them out of it.
   */
  status: JobStatus | 'claimed';
  count: number;
}

/** Filter and page of `listJobs`. */
export interface ListJobsQuery {
  status?: JobStatus;
  /** Only jobs of this name. */
  name?: string;
  /**
   * Only jobs whose data, name, key or last error's name and message contain this text, without regard to case,
   * among the table's newest `SEARCH_SCAN_ROWS` jobs (shared/job-search.ts). Validated (non-empty, bounded, no NUL).
   */
  search?: string;
  /**
   * Only jobs of this group (`JobOptions.group`), combinable with every other filter: through the group's index
   * without a search (`GroupStorage.listGroupJobs`), as one more test on the rows a search reads with one.
   */
  group?: string;
  /** An order other than the default (id, newest first): see `shared/job-sort.ts` for which read serves it. */
  sort?: JobSort;
  /**
   * How many of the table's newest rows a search reads (`SEARCH_SCAN_ROWS` when absent). Internal: no public options
   * object reaches it; the storage contract sets it small to pin the bound without 100,000 rows.
   */
  searchScanRows?: number;
  limit: number;
  offset: number;
}

/** One group's load (`GroupStorage.busiestGroups`). */
export interface GroupLoad {
  group: string;
  running: number;
  /** Counted up to `GROUP_PENDING_COUNT_CAP`. */
  pending: number;
}

/** A group's pending jobs are counted up to this many for `busiestGroups`: the count reads index entries one by one. */
export const GROUP_PENDING_COUNT_CAP = 10_000;

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
/** A failed job as `recentFailures` reads it: the head of its stored error, not the whole (stacks, earlier errors). */
export interface FailureRow {
  id: string;
  finishedAt: number;
  /** The first `FAILURE_ERROR_HEAD` characters of the stored error, or null when it has none. */
  errorHead: string | null;
}

/** Characters of a failed job's stored error `recentFailures` reads: the name and message lead the stored JSON. */
export const FAILURE_ERROR_HEAD = 2048;

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

/** A failed job that cannot be retried while another live job holds its key. */
export interface KeyBlockedJob {
  id: string;
  key: string;
  /** The live job holding the key. */
  holderId: string;
}

/** What `promote` found: the job's status and run time after the call, and whether the call moved it to now. */
export interface PromoteOutcome {
  status: JobStatus;
  /** Epoch ms as stored (a waiting flow parent's carries the wait offset). */
  runAt: number;
  promoted: boolean;
}

/** A live processor announcement of a queue (`OperatorStorage.processorAnnouncements`). */
export interface ProcessorAnnouncementRow {
  queue: string;
  /** Epoch ms until which some process said it processes the queue. */
  until: number;
}

/** What one processing process says of itself each announcement period (`HousekeepingStorage.announceProcess`). */
export interface ProcessAnnouncement {
  /** Its `workerId`. */
  workerId: string;
  /** Epoch ms it started processing: tells a restart under the same worker id from the life before it. */
  startedAt: number;
  /** Its processors, at least one. */
  processors: { queue: string; concurrency: number }[];
  /** Epoch ms until which the announcement holds. */
  until: number;
}

/** One process's announcement of one processor (`OperatorStorage.processRows`). Times in epoch ms. */
export interface ProcessRow {
  workerId: string;
  queue: string;
  concurrency: number;
  startedAt: number;
  /** Its latest announcement. */
  seenAt: number;
  /** Until when that announcement holds (its shutdown time, once it shut down). */
  until: number;
  /** When it shut down, or null: still running, or gone without a word (crashed, killed, cut off). */
  stoppedAt: number | null;
}

/** Jobs one worker id runs in one queue, and the latest write of any of them (a claim or a lease renewal). */
export interface WorkerActivityRow {
  workerId: string;
  queue: string;
  running: number;
  /** Epoch ms. */
  lastSeen: number;
}

/** A descendant that `cancelDescendants` cancelled: its queue, its attempt, and whether a worker held it. */
export interface CancelledDescendant {
  id: string;
  queue: string;
  /** The job's attempt count, the `attempt` of its `cancelled` event. */
  attempt: number;
  /** It was running (or claimed ahead): its owner ends it, as for a single cancel; else nobody will tell of it. */
  running: boolean;
}

/** What `removeTree` did: deleted the job and its descendants (how many rows), or nothing because `running` runs. */
export type RemoveTreeOutcome = { removed: number } | { running: string };
