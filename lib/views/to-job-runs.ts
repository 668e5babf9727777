import { JobTimeoutError } from '../errors/job-timeout.error';
import { JobError, JobRun, JobRunOutcome } from '../interfaces/job-info.interface';
import { JobRecord } from '../storage/queue-storage.interface';
import { StoredRun } from '../storage/shared/run-history';

/** Outcomes whose run carries an error of the job's error column. */
const FAILURES: ReadonlySet<string> = new Set<JobRunOutcome>(['retried', 'failed', 'lease-expired']);
/** The stored outcomes; anything else in a row another tool wrote is skipped. */
const STORED: ReadonlySet<string> = new Set<JobRunOutcome>([
  'retried',
  'failed',
  'lease-expired',
  'snoozed',
  'handed-back',
  'rate-limited',
]);

/**
 * A job's runs, oldest first: its stored history (the runs that ended other than by completing), then the run the
 * row itself describes: the one running now, the one that completed, or the one an operator cancelled while it ran
 * (a completion and a cancel keep `locked_by`). Each failure's error is the entry of the job's error list (`error` and its
 * `previous`, newest first) of its attempt: matched newest to newest, so an attempt number that repeats (an operator
 * retried the job) takes the error of its own life.
 */
export function toJobRuns(record: JobRecord, error: JobError | null): JobRun[] {
  const runs = storedRuns(record.runs ?? null).map(toJobRun);
  const current = currentRun(record);
  if (current) runs.push(current);
  const errors = error ? [error, ...(Array.isArray(error.previous) ? error.previous : [])] : [];
  let next = 0;
  for (let i = runs.length - 1; i >= 0 && next < errors.length; i--) {
    const run = runs[i];
    if (!FAILURES.has(run.outcome)) continue;
    const found = errors.findIndex((entry, index) => index >= next && entry.attempt === run.attempt);
    if (found === -1) continue;
    const { previous: _previous, ...own } = errors[found];
    run.error = own;
    // A timeout is a failure whose error says so: named for what happened rather than what came next.
    if (own.name === JobTimeoutError.name) run.outcome = 'timed-out';
    next = found + 1;
  }
  return runs;
}

/** The stored records, tolerating a column another tool wrote (not JSON, not an array, odd entries: skipped). */
function storedRuns(text: string | null): StoredRun[] {
  if (text === null) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as unknown[]).filter(isStoredRun) : [];
  } catch {
    return [];
  }
}

function isStoredRun(entry: unknown): entry is StoredRun {
  if (typeof entry !== 'object' || entry === null) return false;
  const { attempt, outcome } = entry as Record<string, unknown>;
  return typeof attempt === 'number' && typeof outcome === 'string' && STORED.has(outcome);
}

function toJobRun(stored: StoredRun): JobRun {
  const run: JobRun = {
    attempt: stored.attempt,
    outcome: stored.outcome,
    startedAt: toDate(stored.startedAt),
    endedAt: toDate(stored.endedAt),
    owner: typeof stored.owner === 'string' ? stored.owner : null,
    error: null,
  };
  if (isBatchSize(stored.batch)) run.batchSize = stored.batch;
  return run;
}

/** A batch size as a record or the row holds it: a positive integer (anything else, in a row another tool wrote, is none). */
function isBatchSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The run the row describes, if any: its `started_at`, `finished_at` and `locked_by` are that run's. */
function currentRun(record: JobRecord): JobRun | null {
  const { startedAt } = record;
  if (record.attempts < 1 || startedAt === null) return null;
  const run = (outcome: JobRunOutcome, endedAt: number | null, owner: string | null): JobRun => {
    const current: JobRun = {
      attempt: record.attempts,
      outcome,
      startedAt: new Date(startedAt),
      endedAt: toDate(endedAt),
      owner,
      error: null,
    };
    if (isBatchSize(record.runBatch)) current.batchSize = record.runBatch;
    return current;
  };
  switch (record.status) {
    case 'running':
      return run('running', null, record.lockedBy);
    case 'completed':
      // The completion keeps the owner; a row completed by the 0.1.0 release has none (its completion cleared it).
      return run('completed', record.finishedAt, record.lockedBy);
    case 'cancelled':
      // A cancel keeps the owner of a running job (so it finds out); a pending job cancelled had no run going.
      return record.lockedBy === null ? null : run('cancelled', record.finishedAt, record.lockedBy);
    default:
      return null;
  }
}

function toDate(ms: unknown): Date | null {
  return typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms) : null;
}
