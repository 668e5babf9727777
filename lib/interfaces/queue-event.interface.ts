import { JobError, JobProgress } from './job-info.interface';

/** The kinds of job event, in the order a job can go through them. */
export type JobEventType = 'added' | 'active' | 'progress' | 'retrying' | 'snoozed' | 'stalled' | 'completed' | 'failed' | 'cancelled';

interface JobEventBase<TType extends JobEventType> {
  type: TType;
  queue: string;
  jobId: string;
  /** The attempt the event belongs to (1-based; 0 for `added`). */
  attempt: number;
  /**
   * When this process published the event. Never earlier than an event it published before: an event held back until
   * an add of this process announced its job goes out with that `added`'s time if it was stamped before it.
   */
  timestamp: Date;
  /**
   * Set on events another process published (module option `clusterEvents`): that process's instance id. Absent
   * on this process's own events.
   */
  origin?: string;
}

/**
 * The job was enqueued (emitted by the process that added it; `attempt` is 0). A job added in the caller's transaction
 * (`JobOptions.manager`) is announced when that transaction commits, and never if it rolls back.
 */
export interface JobAddedEvent extends JobEventBase<'added'> {
  /** When it is due (later than now for a delayed job). */
  runAt: Date;
}

/** An attempt started. */
export type JobActiveEvent = JobEventBase<'active'>;

/** The handler reported progress. */
export interface JobProgressEvent extends JobEventBase<'progress'> {
  progress: JobProgress;
}

/** An attempt failed and the job waits for another one. */
export interface JobRetryingEvent extends JobEventBase<'retrying'> {
  error: JobError;
  nextRunAt: Date;
}

/** The handler threw `SnoozeError`: the job is pending again, due at `nextRunAt`, without spending the attempt. */
export interface JobSnoozedEvent extends JobEventBase<'snoozed'> {
  /** When it is due again. */
  nextRunAt: Date;
  /** The snooze asked for, in ms. */
  delay: number;
}

/** The job's lease expired (its process died or hung); emitted by the process that recovered it. */
export interface JobStalledEvent extends JobEventBase<'stalled'> {
  /** True when it went back to pending, false when it had no attempts left and failed. */
  requeued: boolean;
}

/** The job completed. */
export interface JobCompletedEvent<TResult = unknown> extends JobEventBase<'completed'> {
  result: TResult;
  /** Set on an event from another process when the result was too large to publish (read it with `admin.getJob`). */
  resultOmitted?: true;
}

/** The job failed for good. */
export interface JobFailedEvent extends JobEventBase<'failed'> {
  error: JobError;
}

/**
 * An operator cancelled the job: emitted by the process that ran it, or, for a job no process ran (a pending job, or a
 * pending descendant of a cancel with `cascade`), by the process that cancelled it.
 */
export type JobCancelledEvent = JobEventBase<'cancelled'>;

/** Any job event. Discriminate on `type`. */
export type QueueEvent =
  | JobAddedEvent
  | JobActiveEvent
  | JobProgressEvent
  | JobRetryingEvent
  | JobSnoozedEvent
  | JobStalledEvent
  | JobCompletedEvent
  | JobFailedEvent
  | JobCancelledEvent;

/** The event type of one kind. */
export type QueueEventOf<TType extends JobEventType> = Extract<QueueEvent, { type: TType }>;

/** Every event kind. */
export const JOB_EVENT_TYPES: readonly JobEventType[] = [
  'added',
  'active',
  'progress',
  'retrying',
  'snoozed',
  'stalled',
  'completed',
  'failed',
  'cancelled',
];
