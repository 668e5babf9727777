/**
 * How a flow parent waits for its children without a column or index of its own on the hot path: it is an ordinary
 * pending row whose `run_at` is pushed this far into the future, so the claim (which only takes `run_at <= now`)
 * passes it by through the same index walk as any delayed job. Its intended run time is kept: `run_at - offset`.
 * The offset is larger than any valid run time (year 9999 is 2.5e14 ms) and the sum stays below 2^53.
 */
export const FLOW_WAIT_OFFSET = 1_000_000_000_000_000;

/** Whether a stored run_at is a waiting parent's (its children are not all done). */
export function isWaitingRunAt(runAt: number): boolean {
  return runAt >= FLOW_WAIT_OFFSET;
}

/** The run time a parent had when it was added, whether it still waits or not. */
export function intendedRunAt(runAt: number): number {
  return isWaitingRunAt(runAt) ? runAt - FLOW_WAIT_OFFSET : runAt;
}
