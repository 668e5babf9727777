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

/**
 * Bounds of every numeric option, in one place (docs/configuration.md's option tables state them). Each keeps a value
 * exact in a JavaScript number, storable in SQLite's INTEGER and PostgreSQL's bigint/integer columns, and
 * inside the range of a `Date`: past them a job would be stored as REAL, rejected by the driver, or due at
 * an Invalid Date and never run.
 */
export const LIMITS = {
  /** Attempts are counted in a 32-bit column on PostgreSQL. */
  maxAttempts: 2_147_483_647,
  /** Longest delay, backoff, retention age, schedule interval or `clean` age: 100 years of ms. */
  durationMs: 3_155_760_000_000,
  /** Latest `runAt` (9999-12-31T23:59:59.999Z): any due time up to it is a valid Date on both backends. */
  epochMs: 253_402_300_799_999,
  /** Most jobs of one queue this process runs at once. */
  concurrency: 100_000,
  /** Most jobs one claim takes. */
  batchSize: 100_000,
  /** Longest job group (`JobOptions.group`), in characters: it is a key of two indexes. */
  groupLength: 256,
} as const;

/** An integer from `min` to `max`. */
export function isIntegerInRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** A number of ms from 0 to `LIMITS.durationMs`. */
export function isDurationMs(value: unknown): value is number {
  return isNonNegativeFinite(value) && value <= LIMITS.durationMs;
}

/** A NUL, or a UTF-16 surrogate without its other half. */
// NUL is the point of this pattern.
// eslint-disable-next-line no-control-regex
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string bound as a text column would not come back identical, or null when it would. Both backends
 * store UTF-8, which has no encoding for a lone surrogate (drivers write U+FFFD instead, and SQLite's JSON
 * functions write invalid bytes), and PostgreSQL refuses NUL in text.
 */
export function unstorableTextProblem(value: string): string | null {
  const match = UNSTORABLE_TEXT.exec(value);
  if (match === null) return null;
  const at = `at index ${match.index}`;
  return match[0] === '\u0000'
    ? `holds a NUL character (U+0000) ${at}, which the database cannot store in text`
    : `holds a lone UTF-16 surrogate ${at} (half of a character, e.g. text cut in the middle of an emoji), which UTF-8 cannot store`;
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
  if (Array.isArray(value)) return 'an array';
  const kind = typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
  const noun = kind === 'Object' ? 'object' : kind;
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}
