import type { JobRecord, NewJobRecord } from '../storage-records';

/** Throttled and debounced adds (`keyTtl`, `debounce`): `QueueProducer.add`. */
export interface KeyedEnqueueStorage {
  /**
   * Adds one job whose key throttles (`keyUntil`) or debounces (`debounce`), atomically against every other add of
   * any process: a throttled job is inserted unless its key is live or inside a window (then that holder comes
   * back); a debounced one replaces the unstarted job of its key (id kept), else is inserted. Several statements,
   * each atomic; never a transaction.
   */
  enqueueKeyed(queue: string, job: NewJobRecord, now: number): Promise<JobRecord>;
}
