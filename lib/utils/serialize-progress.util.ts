import { InvalidJobProgressError } from '../errors/invalid-job-progress.error';
import { serializeJobData } from './serialize-job-data.util';

/** Largest progress value stored, as JSON: progress is a status line, not a payload. */
export const MAX_PROGRESS_BYTES = 16 * 1024;

/** Validates and serialises a progress value; throws `InvalidJobProgressError`. */
export function serializeProgress(queue: string, jobId: string, progress: unknown): string {
  const isNumber = typeof progress === 'number' && Number.isFinite(progress);
  const isObject = typeof progress === 'object' && progress !== null && !Array.isArray(progress);
  if (!isNumber && !isObject) {
    throw new InvalidJobProgressError(queue, jobId, 'must be a finite number or a plain JSON object');
  }
  let json: string;
  try {
    json = serializeJobData(queue, progress, 'progress');
  } catch (error) {
    throw new InvalidJobProgressError(queue, jobId, error instanceof Error ? error.message : String(error));
  }
  if (Buffer.byteLength(json) > MAX_PROGRESS_BYTES) {
    throw new InvalidJobProgressError(
      queue,
      jobId,
      `is ${Buffer.byteLength(json)} bytes as JSON; at most ${MAX_PROGRESS_BYTES} are allowed`,
    );
  }
  return json;
}
