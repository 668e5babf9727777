import { JobKeyConflictError } from '../../errors/job-key-conflict.error';
import { newJobRecord } from './job-row.mapper';
import { JobRecord, NewJobRecord } from '../queue-storage.interface';

/** What a backend gives `enqueueKeyed`: single statements, each atomic on its own. */
export interface KeyedBackend {
  /** Inserts a throttled job unless its key is taken (a live job holds it, or a window is open): its id, or null. */
  insertThrottled(queue: string, job: NewJobRecord, now: number): Promise<string | null>;
  /** The newest job of `queue` holding `key`: live, or inside its window at `now`. */
  keyHolder(queue: string, key: string, now: number): Promise<JobRecord | null>;
  /** Replaces the data and options of the debounced job of `key` that has not started: the job after, or null. */
  replaceDebounced(queue: string, job: NewJobRecord, now: number): Promise<JobRecord | null>;
  /** Inserts a debounced job unless one of its key has not started yet: its id, or null. */
  insertDebounced(queue: string, job: NewJobRecord, now: number): Promise<string | null>;
}

/**
 * How many rounds one keyed add makes before giving up: each further one needs another process to change the key's
 * holder between two of our statements once more (finish it, or claim it).
 */
const MAX_ROUNDS = 5;

/**
 * A throttled or debounced add, as statements that are each atomic, so it needs no transaction and races safely with
 * adds of other processes: a throttled add inserts unless the key is taken, else returns the holder; a debounced add
 * replaces the key's unstarted job, else inserts one (a unique index keeps it to one), else another add inserted it
 * meanwhile and the next round replaces that one. Both backends share this loop: only their SQL differs.
 */
export async function enqueueKeyed(backend: KeyedBackend, queue: string, job: NewJobRecord, now: () => number): Promise<JobRecord> {
  const key = job.key as string;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const at = now();
    if (job.debounce) {
      const replaced = await backend.replaceDebounced(queue, job, at);
      if (replaced) return replaced;
      const id = await backend.insertDebounced(queue, job, at);
      if (id !== null) return newJobRecord(queue, job, id, at);
    } else {
      const id = await backend.insertThrottled(queue, job, at);
      if (id !== null) return newJobRecord(queue, job, id, at);
      const holder = await backend.keyHolder(queue, key, at);
      if (holder) return holder;
    }
  }
  throw new JobKeyConflictError(
    queue,
    key,
    `its holder changed between two statements of the add ${MAX_ROUNDS} times in a row; nothing was enqueued for it`,
  );
}
