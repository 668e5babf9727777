import { JobStatus } from '../interfaces/job-info.interface';
import { QueueError } from './queue.error';

/** An operation that the job's current status does not allow (retrying a completed job, removing a running one...). */
export class InvalidJobStateError extends QueueError {
  constructor(
    /** The job. */
    readonly jobId: string,
    /** Its status at the time. */
    readonly status: JobStatus,
    /** What was attempted. */
    readonly operation: string,
    /** Statuses the operation accepts. */
    readonly allowed: readonly JobStatus[],
  ) {
    super(
      `Cannot ${operation} job ${jobId}: it is ${status} (only ${allowed.join(' or ')} jobs can be ${operation === 'retry' ? 'retried' : `${operation}${operation.endsWith('e') ? 'd' : 'ed'}`})`,
    );
  }
}
