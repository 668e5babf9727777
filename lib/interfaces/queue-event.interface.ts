import { JobError, JobProgress } from './job-info.interface';

/** The kinds of job event, in the order a job can go through them. */
export type JobEventType = 'active' | 'progress' | 'retrying' | 'stalled' | 'completed' | 'failed' | 'cancelled';

interface JobEventBase<TType extends JobEventType> {
  type: TType;
  queue: string;
  jobId: string;
  /** The attempt the event belongs to (1-based). */
  attempt: number;
  timestamp: Date;
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

/** The job's lease expired (its process died or hung); emitted by the process that recovered it. */
export interface JobStalledEvent extends JobEventBase<'stalled'> {
  /** True when it went back to pending, false when it had no attempts left and failed. */
  requeued: boolean;
}

/** The job completed. */
export interface JobCompletedEvent<TResult = unknown> extends JobEventBase<'completed'> {
  result: TResult;
}

/** The job failed for good. */
export interface JobFailedEvent extends JobEventBase<'failed'> {
  error: JobError;
}

/** An operator cancelled the job while this process ran it. */
export type JobCancelledEvent = JobEventBase<'cancelled'>;

/** Any job event. Discriminate on `type`. */
export type QueueEvent =
  JobActiveEvent | JobProgressEvent | JobRetryingEvent | JobStalledEvent | JobCompletedEvent | JobFailedEvent | JobCancelledEvent;

/** The event type of one kind. */
export type QueueEventOf<TType extends JobEventType> = Extract<QueueEvent, { type: TType }>;

/** Every event kind. */
export const JOB_EVENT_TYPES: readonly JobEventType[] = ['active', 'progress', 'retrying', 'stalled', 'completed', 'failed', 'cancelled'];
