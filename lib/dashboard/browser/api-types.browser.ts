// The JSON the dashboard's API answers, as the page reads it: dates are ISO strings, and statuses are open strings
// because the page takes them from the server's counts (a status a later version adds shows without a change here).
// Written against lib/dashboard/dashboard-api.service.ts; the browser program cannot import the server's types
// (they pull in Node and Nest), so a field renamed there must be renamed here.

/** Jobs of a queue per status. */
type WireCounts = Record<string, number>;

/** Percentiles of a duration, in milliseconds. */
interface WirePercentiles {
  p50: number;
  p95: number;
}

/** A queue's recent metrics: one value per minute of the chart window, oldest first. */
interface WireMetrics {
  completed: number;
  failed: number;
  completedPerMinute: number[];
  failedPerMinute: number[];
  waitTimePerMinute: (WirePercentiles | null)[];
  runTimePerMinute: (WirePercentiles | null)[];
  waitTime: WirePercentiles | null;
  runTime: WirePercentiles | null;
}

/** A queue as the overview and the queue page show it. */
interface WireQueue {
  name: string;
  counts: WireCounts;
  paused: boolean;
  hasProcessor: boolean;
  processed: boolean;
  concurrency: number | null;
  metrics: WireMetrics | null;
}

/** A queue's limits: rates kept for every process, concurrency bounds of the dashboard's application. */
interface WireQueueLimits {
  concurrency: number | null;
  limiter: { max: number; duration: number } | null;
  groupLimiter: { max: number; duration: number } | null;
  globalConcurrency: number | null;
  groupConcurrency: number | null;
  limitedUntil: string | null;
}

/** The fields every page's answer may carry, which the polling loop reads whatever the view. */
interface PageData {
  readOnly?: boolean;
  refreshInterval?: number;
  chartMinutes?: number;
  queue?: { counts: WireCounts };
  queues?: { counts: WireCounts }[];
}

/** GET api/overview. */
interface OverviewData extends PageData {
  readOnly: boolean;
  refreshInterval: number;
  chartMinutes: number;
  sampled: boolean;
  queues: WireQueue[];
}

/** A job in a list: no data or result, its error as one line, `hidden` naming the fields redact kept back. */
interface WireJobSummary {
  id: string;
  name?: string | null;
  status: string;
  key: string | null;
  attempts: number;
  maxAttempts: number;
  createdAt: string;
  /** Null while a running job is claimed ahead of a free slot (no handler has it yet). */
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  hidden?: string[];
}

/** GET api/queue?queue=. */
interface QueueData extends PageData {
  readOnly: boolean;
  queue: WireQueue;
  /** The queue's limits (`QueueAdmin.getQueueLimits`); absent from a server before them. */
  limits?: WireQueueLimits | null;
  jobs: WireJobSummary[];
  /**
   * How many jobs the list holds: the status count in the default order and in an exact one (`sort.exact`); in an
   * order sorted among the newest jobs only, the count of those it holds, known on its last page only and null before
   * it (and on a page past the last).
   */
  total: number | null;
  /** Whether a page follows this one; with a search (one page, not paged), whether more may match than it shows. */
  more: boolean;
  offset: number;
  limit: number;
  status: string | null;
  search: string;
  /** Whether a search looks in the jobs' text (not while `redact.data` has a rule: then id and key only). */
  textSearch?: boolean;
  /** How many of the database's newest jobs a text search reads. */
  searchScanRows?: number;
  /** The job-name filter (null without one). */
  name: string | null;
  /** The counts of the jobs of that name, group or both, per status (null without either filter). */
  nameCounts: WireCounts | null;
  /** The order asked (null: newest first), and whether it is exact over the whole queue or over the newest 100,000 jobs. */
  sort?: { by: string; order: 'asc' | 'desc'; exact: boolean } | null;
}

/** A failed attempt's error, with the earlier attempts' on the last one. */
interface WireJobError {
  name: string;
  message: string;
  stack?: string;
  code?: string | number;
  attempt?: number;
  previous?: WireJobError[];
}

/** One run of a job's history (JobInfo.runs). */
interface WireJobRun {
  attempt: number;
  outcome: string;
  startedAt: string | null;
  endedAt: string | null;
  owner: string | null;
  error: WireJobError | null;
  /** Present for a run of a batch handler: how many jobs its call held. */
  batchSize?: number;
}

/** A job, whole; fields a later version adds are shown under "Other fields". */
interface WireJob {
  [field: string]: unknown;
  id: string;
  queue: string;
  name?: string | null;
  status: string;
  data: unknown;
  result: unknown;
  error: WireJobError | null;
  progress: unknown;
  priority: number;
  attempts: number;
  maxAttempts: number;
  key: string | null;
  lockedBy: string | null;
  leaseUntil: string | null;
  createdAt: string;
  runAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
  /** Its runs, oldest first (absent from a server before run histories). */
  runs?: WireJobRun[];
}

/** A job of a flow tree. */
interface WireFlowNode {
  id: string;
  queue: string;
  name: string | null;
  status: string;
}

/** GET api/job?id=. */
interface JobData extends PageData {
  readOnly: boolean;
  hidden: string[];
  job: WireJob;
  /** job.log() lines, oldest first; null when the redact option keeps them back. */
  logs: string[] | null;
  /** Its parent and children; null outside a flow. */
  flow: { parent: WireFlowNode | null; children: WireFlowNode[]; moreChildren: number } | null;
  /** The jobs it waits for (`dependsOn`; queue null once removed) and those that wait for it; null or absent outside any. */
  dependencies?: {
    dependencies: WireLinkedJob[];
    dependencyCount: number;
    dependents: WireLinkedJob[];
    dependentCount: number;
  } | null;
}

/** A job linked by `dependsOn`: queue and name null once it was removed. */
interface WireLinkedJob {
  id: string;
  queue: string | null;
  name: string | null;
  status: string;
}

/** A recurring job. */
interface WireSchedule {
  queue: string;
  name: string;
  cron: string | null;
  every: number | null;
  timezone: string | null;
  nextRunAt: string | null;
  paused?: boolean;
  data: unknown;
  dataHidden: boolean;
  lastRun: (WireFlowNode & { createdAt: string; finishedAt: string | null }) | null;
}

/** GET api/schedules. */
interface SchedulesData extends PageData {
  readOnly: boolean;
  schedules: WireSchedule[];
}

/** What an action did, in words for the operator. */
interface ActionAnswer {
  message: string;
}

/** GET api/processes. */
interface ProcessesData extends PageData {
  readOnly: boolean;
  self: { workerId: string; processors: { queue: string; concurrency: number }[] };
  processes: {
    workerId: string;
    state: 'live' | 'stopped' | 'lost';
    startedAt: string;
    lastSeen: string;
    stoppedAt: string | null;
    processors: { queue: string; concurrency: number; running: number }[];
  }[];
  workers: { workerId: string; queues: { queue: string; running: number }[]; lastSeen: string }[];
  announcements: { queue: string; until: string }[];
}
