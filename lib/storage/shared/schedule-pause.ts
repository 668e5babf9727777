import { FLOW_WAIT_OFFSET } from './flow-wait';

/**
 * How a schedule is paused without a column of its own (no schema step): its next run is pushed this far into the
 * future, so the scheduler's due read (`next_run_at <= now`) passes it by, and the intended time is kept as
 * `next_run_at - offset`. A schedule parked for ever (a cron that never fires again: MAX_SAFE_INTEGER) is not
 * paused. The same offset as a waiting flow parent's run time, whose bounds it shares.
 */
export const SCHEDULE_PAUSE_OFFSET = FLOW_WAIT_OFFSET;

/** The stored next run of a parked schedule (see schedule-definition.ts): never due, never paused. */
export const PARKED_RUN_AT = Number.MAX_SAFE_INTEGER;

/** Whether a stored next_run_at is a paused schedule's. */
export function isPausedRunAt(nextRunAt: number): boolean {
  return nextRunAt >= SCHEDULE_PAUSE_OFFSET && nextRunAt < PARKED_RUN_AT;
}

/** The next run a schedule had when it was paused (its stored value when not paused). */
export function intendedNextRunAt(nextRunAt: number): number {
  return isPausedRunAt(nextRunAt) ? nextRunAt - SCHEDULE_PAUSE_OFFSET : nextRunAt;
}
