/** Small predicates shared by every boundary check. */
export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

export function isNonNegativeFinite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export function isPositiveFinite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/** Longest delay Node's timers honour; a longer one fires after 1 ms (with a TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2_147_483_647;

/** A positive number of ms that a timer can wait: > 0 and <= MAX_TIMER_MS. */
export function isTimerDuration(value: unknown): value is number {
  return isPositiveFinite(value) && value <= MAX_TIMER_MS;
}

export function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

/** Describes a rejected value in an error message without dumping large objects. */
export function describeValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value instanceof Date) return 'an invalid Date';
  return `a ${typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value}`;
}
