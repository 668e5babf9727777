import { JobError } from '../interfaces/job-info.interface';

/**
 * Longest message or stack stored with an attempt's error, in characters. A handler can throw anything, including
 * a multi-megabyte string; the row must stay small enough to read back in a listing, and the head says what failed.
 */
export const MAX_ERROR_TEXT_LENGTH = 8192;

/**
 * Turns anything thrown into the stored error shape, without ever throwing itself: a hostile value (a null-prototype
 * object, a cycle, a getter or Proxy trap that throws, a Symbol, a BigInt) must still fail its attempt cleanly.
 * It keeps what can be kept: `name`, `message`, `stack` and an own `code` of errors and error-like objects.
 */
export function toJobError(thrown: unknown, attempt: number): JobError {
  try {
    if (thrown !== null && typeof thrown === 'object') return fromObject(thrown, attempt);
  } catch {
    // A Proxy or accessor that throws on every read: fall through to what can be said without reading it.
  }
  return { name: 'NonErrorThrown', message: bounded(describe(thrown)), attempt };
}

/** Most earlier attempts' errors a job's stored error carries. */
export const MAX_EARLIER_ERRORS = 9;
/** Longest stack kept of an earlier attempt's error: the latest keeps its whole (bounded) stack. */
const EARLIER_STACK_LENGTH = 2048;

/**
 * The error of this attempt with those of the earlier ones (from the error the job carried when it was claimed),
 * so an operator sees every attempt's failure, not only the last. Kept in the one error column: no schema change,
 * no extra statement, and the size stays bounded (at most 9 earlier errors with 2 kB stacks).
 */
export function withEarlierErrors(error: JobError, stored: string | null): JobError {
  const before = parseJobError(stored);
  if (!before || typeof before !== 'object') return error;
  const { previous, ...last } = before;
  const earlier = [last, ...(Array.isArray(previous) ? previous : [])].slice(0, MAX_EARLIER_ERRORS).map((entry) => ({
    ...entry,
    ...(typeof entry.stack === 'string' ? { stack: entry.stack.slice(0, EARLIER_STACK_LENGTH) } : {}),
  }));
  return { ...error, previous: earlier };
}

/** Serialises a job error for storage; never throws, whatever the fields hold. */
export function serializeJobError(error: JobError): string {
  try {
    return JSON.stringify(error);
  } catch {
    return JSON.stringify(toJobError(error, typeof error.attempt === 'number' ? error.attempt : 0));
  }
}

/** Reads a stored error, tolerating rows written by other tools. */
export function parseJobError(stored: string | null): JobError | null {
  if (stored === null) return null;
  try {
    return JSON.parse(stored) as JobError;
  } catch {
    return { name: 'Error', message: stored, attempt: 0 };
  }
}

function fromObject(thrown: object, attempt: number): JobError {
  const fields = thrown as Record<string, unknown>;
  const isError = safely(() => thrown instanceof Error, false);
  const message = safely(() => fields.message, undefined);
  // An object that is neither an Error nor shaped like one is reported as a whole, as JSON where it can be.
  if (!isError && typeof message !== 'string') return { name: 'NonErrorThrown', message: bounded(describe(thrown)), attempt };
  const name = safely(() => fields.name, undefined);
  const stack = safely(() => fields.stack, undefined);
  const code = safely(() => (Object.prototype.hasOwnProperty.call(thrown, 'code') ? fields.code : undefined), undefined);
  const error: JobError = {
    name: typeof name === 'string' && name !== '' ? bounded(name, 200) : isError ? 'Error' : 'NonErrorThrown',
    message: typeof message === 'string' ? bounded(message) : message === undefined ? '' : bounded(describe(message)),
    attempt,
  };
  if (typeof stack === 'string') error.stack = bounded(stack);
  if (typeof code === 'string') error.code = bounded(code, 200);
  else if (typeof code === 'number' && Number.isFinite(code)) error.code = code;
  return error;
}

/** A readable text for any value: JSON where it has one, else `String()`, else its type. */
function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  const json = safely(() => JSON.stringify(value) as string | undefined, undefined);
  if (typeof json === 'string') return json;
  const text = safely(() => String(value), undefined);
  if (typeof text === 'string') return text;
  return `a thrown ${value === null ? 'null' : typeof value} that cannot be converted to text`;
}

function bounded(text: string, max = MAX_ERROR_TEXT_LENGTH): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
