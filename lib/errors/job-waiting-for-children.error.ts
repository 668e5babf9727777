import { QueueError } from './queue.error';

/**
 * `QueueAdmin.promote()` of a job that still waits for other jobs: a flow parent for its children, or a job added with
 * `dependsOn` for its dependencies. Running it now would run it before them; it runs by itself once the last of them
 * has ended.
 */
export class JobWaitingForChildrenError extends QueueError {
  constructor(
    /** The waiting job. */
    readonly jobId: string,
    /** What it waits for: its children (a flow parent) or its dependencies (`dependsOn`). */
    readonly waitingFor: 'children' | 'dependencies' = 'children',
  ) {
    super(
      waitingFor === 'children'
        ? `Cannot promote job ${jobId}: it is a flow parent waiting for its children, and runs once the last of them has ended`
        : `Cannot promote job ${jobId}: it waits for the jobs it depends on (dependsOn), and runs once the last of them has ended`,
    );
  }
}
