import type { EntityManager } from 'typeorm';
import { JobOptions } from './job-options.interface';

/** A job of the same `addGraph` call, named by its `ref`, in a `dependsOn` list. */
export interface GraphRef {
  ref: string;
}

/**
 * One job of a graph given to `QueueProducer.addGraph()`: a job of any queue that may wait for other jobs of the same
 * call (`{ ref }`) and for jobs that already exist (their ids), as `dependsOn` does for one `add`.
 */
export interface GraphJob<TData = unknown> {
  /** The job's name in this call, for other jobs' `dependsOn: [{ ref }]`: 1 to 128 characters, unique in the call. */
  ref: string;
  /** The job's queue. */
  queue: string;
  /** The payload; must survive a JSON round-trip. */
  data: TData;
  /**
   * Per-job options, as for `add()`, except `key` and `manager` (the graph is written at once: see `addGraph`);
   * `dependsOn` takes jobs of this call as `{ ref }` beside the ids of existing jobs.
   */
  options?: Omit<JobOptions, 'key' | 'keyTtl' | 'debounce' | 'manager' | 'dependsOn'> & { dependsOn?: (string | GraphRef)[] };
}

/** Options of `QueueProducer.addGraph()`. */
export interface AddGraphOptions {
  /** Enqueue the whole graph in your open TypeORM transaction (see `JobOptions.manager`). */
  manager?: EntityManager;
}
