import { JobError } from '../interfaces/job-info.interface';

/** Turns anything thrown into the stored error shape, without ever throwing itself. */
export function toJobError(thrown: unknown, attempt: number): JobError {
  if (thrown instanceof Error) {
    return { name: thrown.name || 'Error', message: thrown.message, stack: thrown.stack, attempt };
  }
  let message: string;
  try {
    message = typeof thrown === 'string' ? thrown : JSON.stringify(thrown) ?? String(thrown);
  } catch {
    message = String(thrown);
  }
  return { name: 'NonErrorThrown', message, attempt };
}

/** Serialises a job error for storage. */
export function serializeJobError(error: JobError): string {
  return JSON.stringify(error);
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
