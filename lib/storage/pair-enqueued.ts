import { newJobRecord } from './job-row.mapper';
import { JobRecord, NewJobRecord } from './queue-storage.interface';

/** A row an enqueue statement inserted: its id and key (ids sorted ascending follow input order). */
export interface InsertedRow {
  id: string;
  key: string | null;
}

/** What pairing needs from a backend. */
export interface PairingBackend {
  /** Live (pending or running) jobs of `queue` holding these keys. */
  findByKeys(queue: string, keys: string[]): Promise<JobRecord[]>;
  /** Enqueues again (the backend's own `enqueue`). */
  enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
}

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
  // The holder of the key finished between our insert and our read: the key is free again, so try once more.
  const retried = await backend.enqueue(queue, unresolved.map((index) => jobs[index]), Date.now());
  unresolved.forEach((index, i) => (records[index] = retried[i]));
  return records;
}
