import { QueueError } from './queue.error';

/**
 * The error a job added with `dependsOn` records (as `getJob(id).error.name`) when one of its dependencies ended
 * failed or cancelled, or was removed before it ended, and the job was added with `onDependencyFailure: 'fail'` (the
 * default): the job fails for good without running, and so do the jobs that depend on it with that policy. The
 * database writes it (in the statement that ends the dependency), so this class is what to compare names with.
 */
export class DependencyFailedError extends QueueError {
  constructor(
    /** The dependency that ended failed, cancelled or removed. */
    readonly dependencyId: string,
  ) {
    super(`Dependency job ${dependencyId} ended failed, cancelled or removed before this job could run`);
  }
}
