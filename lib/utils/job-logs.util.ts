import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { describeValue } from './validation.util';

/**
 * Most lines a job keeps: past it, each new line drops the oldest. Bounded because SQLite rewrites the whole row
 * on every update of the job (progress, completion): an unbounded log would slow every later write of that job.
 */
export const MAX_JOB_LOG_LINES = 100;

/** Longest line kept, in characters; a longer line is cut and says how much was cut. */
export const MAX_JOB_LOG_LINE_LENGTH = 1000;

/** The text of one log line as stored: a string, cut at `MAX_JOB_LOG_LINE_LENGTH`, without characters UTF-8 cannot hold. */
export function toLogLine(queue: string, jobId: string, line: unknown): string {
  if (typeof line !== 'string') {
    throw new InvalidArgumentError('log', 'line', `must be a string (job ${jobId}, queue ${queue}), got ${describeValue(line)}`, 'job');
  }
  // A NUL or a lone surrogate would be stored altered or refused: replace them rather than lose the line.
  // eslint-disable-next-line no-control-regex
  const clean = line.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  if (clean.length <= MAX_JOB_LOG_LINE_LENGTH) return clean;
  const cut = clean.length - MAX_JOB_LOG_LINE_LENGTH;
  return `${clean.slice(0, MAX_JOB_LOG_LINE_LENGTH)}… [${cut} more characters cut]`;
}

/** The stored log of a job (a JSON array of strings, or null) as lines; unreadable text is shown as one line. */
export function parseJobLogs(stored: string | null): string[] {
  if (stored === null) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.map(String) : [stored];
  } catch {
    return [stored];
  }
}
