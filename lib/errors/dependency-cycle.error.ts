import { QueueError } from './queue.error';

/**
 * `QueueProducer.addGraph()` was given jobs that depend on each other in a circle: none of them could ever run.
 * Nothing is written.
 */
export class DependencyCycleError extends QueueError {
  constructor(
    /** The `ref`s of the jobs on one such circle, each depending on the next, the last on the first. */
    readonly cycle: string[],
  ) {
    super(
      `The jobs ${cycle.map((ref) => JSON.stringify(ref)).join(' → ')} → ${JSON.stringify(cycle[0])} depend on each other in a cycle: none could run. Nothing was enqueued.`,
    );
  }
}
