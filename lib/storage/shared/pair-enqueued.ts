import { JobKeyConflictError } from '../../errors/job-key-conflict.error';
import { newJobRecord } from './job-row.mapper';
import { JobRecord, NewJobRecord } from '../queue-storage.interface';

/** A row an enqueue statement inserted: its id and key (ids sorted ascending follow input order). */
export interface InsertedRow {
  id: string;
  key: string | null;
}

/** What pairing needs from a backend. */
export interface PairingBackend {
  /** Live (pending or running) jobs of `queue` holding these keys. */
  findByKeys(queue: string, keys: string[]): Promise<JobRecord[]>;
  /** Runs the backend's insert statement alone: the rows it inserted, sorted by id (input order). */
  insert(queue: string, jobs: NewJobRecord[], now: number): Promise<InsertedRow[]>;
}

/**
 * How many inserts one enqueue makes before giving up on a key: each further one needs the key's holder to
 * finish between our insert and our read once more. Never unbounded: a key that could not be found again
 * (one the database stored altered) once made this loop forever.
 */
const MAX_ENQUEUE_ROUNDS = 3;

/**
 * One record per input, in input order, after an enqueue that may have skipped inputs whose key was taken.
 * Inserted rows follow input order, so a keyed input owns the next row exactly when that row carries its key;
 * a skipped input gets the live job holding its key. Both backends share this: only their SQL differs.
 */
export async function pairEnqueued(
  backend: PairingBackend,
  queue: string,
  jobs: NewJobRecord[],
  inserted: InsertedRow[],
  now: number,
  roundsLeft = MAX_ENQUEUE_ROUNDS - 1,
): Promise<JobRecord[]> {
  if (inserted.length === jobs.length) return jobs.map((job, index) => newJobRecord(queue, job, inserted[index].id, now));
  const result: (JobRecord | undefined)[] = [];
  const missingKeys = new Set<string>();
  let next = 0;
  for (const job of jobs) {
    const row = inserted[next];
    if (row && (job.key === null || row.key === job.key)) {
      result.push(newJobRecord(queue, job, row.id, now));
      next++;
    } else {
      result.push(undefined);
      missingKeys.add(job.key as string);
    }
  }
  const existing = new Map((await backend.findByKeys(queue, [...missingKeys])).map((record) => [record.key as string, record] as const));
  const unresolved: number[] = [];
  const records = result.map((row, index) => {
    const match = row ?? existing.get(jobs[index].key as string);
    if (!match) unresolved.push(index);
    return match as JobRecord;
  });
  if (unresolved.length === 0) return records;
  const again = unresolved.map((index) => jobs[index]);
  if (roundsLeft <= 0) {
    throw new JobKeyConflictError(
      queue,
      again[0].key as string,
      `the job holding it finished before it could be read, ${MAX_ENQUEUE_ROUNDS} times in a row; nothing was enqueued for it`,
    );
  }
  // The holder of the key finished between our insert and our read: the key is free again, so try once more.
  const retryNow = Date.now();
  const retried = await pairEnqueued(backend, queue, again, await backend.insert(queue, again, retryNow), retryNow, roundsLeft - 1);
  unresolved.forEach((index, i) => (records[index] = retried[i]));
  return records;
}
