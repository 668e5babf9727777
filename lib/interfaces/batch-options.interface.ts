/**
 * A batch processor's batch (`@Processor(queue, { batch })`): its `process(jobs)` receives up to `size` jobs in one
 * call. The jobs are claimed as every other queue's are, by the shared poller; each keeps its own lease, timeout,
 * signal, progress, log, events and outcome.
 */
export interface BatchOptions {
  /** Most jobs per call, an integer from 1 to 10,000. The processor's `concurrency` defaults to it. */
  size: number;
  /**
   * How long (ms) a partial batch waits for more jobs after its first one arrives, before it is called with what it
   * holds. Default 0: the jobs of one claim go together, nothing more is waited for. The wait counts in each job's
   * timeout.
   */
  maxWaitMs?: number;
}
