/**
 * What every storage contract file (`test/storage-contract*.e2e-spec.ts`, one per role of `QueueStorage`) shares: a
 * fresh storage per test, built the way the module builds it (`createQueueStorage(resolveModuleOptions(...))`), so
 * no contract depends on a backend's classes, and the small builders of its inputs. Each test's database is already
 * at the newest schema (`backend.migratedDatabase()`), which `initialize()` still checks: the contract is not about
 * migrating (the schema-migrations files are), and migrating from step 1 was most of a contract test's set-up.
 */
import { createQueueStorage } from '../../lib/runtime/create-queue-storage';
import { resolveModuleOptions } from '../../lib/runtime/resolve-module-options';
import {
  AttemptRef,
  JobRecord,
  NewJobRecord,
  QueueStorage,
  ScheduleOccurrence,
  ScheduleRecord,
} from '../../lib/storage/queue-storage.interface';
import { Backend, TestDatabase } from './backends';

/** A lease no test outlives. */
export const CONTRACT_LEASE = 60_000;

/** A due job with no options, with `overrides`. */
export function newJob(overrides: Partial<NewJobRecord> = {}): NewJobRecord {
  return { data: '{}', priority: 0, runAt: Date.now() - 1, maxAttempts: 3, backoff: null, timeout: null, key: null, ...overrides };
}

/** A schedule `tick` of queue `sched`, every second from 5000 (a time long past: due at once), with `overrides`. */
export function newSchedule(overrides: Partial<ScheduleRecord> = {}): ScheduleRecord {
  return {
    queue: 'sched',
    name: 'tick',
    cron: null,
    every: 1000,
    timezone: null,
    data: '{}',
    options: null,
    nextRunAt: 5000,
    ...overrides,
  };
}

/**
 * The occurrence a scheduler enqueues from `read` (the schedule as it read it) at `at` (by default the next run it
 * read), advancing it one second past that occurrence.
 */
export function occurrenceOf(read: ScheduleRecord, at = read.nextRunAt): ScheduleOccurrence {
  return { schedule: read, occurrenceAt: at, job: newJob({ runAt: at }), nextRunAt: at + 1000 };
}

/** The attempt a claimed job is in. */
export function ref(job: Pick<JobRecord, 'id' | 'attempts'>): AttemptRef {
  return { id: job.id, attempt: job.attempts };
}

/** A fresh, initialised storage of `backend`, on a migrated database, for each test of the enclosing describe, closed after it. */
export function contractStorage(backend: Backend): { readonly storage: QueueStorage; readonly db: TestDatabase } {
  const current: { storage?: QueueStorage; db?: TestDatabase } = {};
  beforeEach(async () => {
    current.db = await backend.migratedDatabase();
    current.storage = createQueueStorage(resolveModuleOptions({ ...current.db.options }));
    await current.storage.initialize();
  });
  afterEach(async () => {
    await current.storage?.close();
    current.db?.cleanup();
  });
  return {
    get storage() {
      return current.storage!;
    },
    get db() {
      return current.db!;
    },
  };
}

/** Enqueues one job of `queue` and returns its record. */
export async function addJob(storage: QueueStorage, queue: string, overrides: Partial<NewJobRecord> = {}): Promise<JobRecord> {
  const [job] = await storage.enqueue(queue, [newJob(overrides)], Date.now());
  return job;
}

/** Claims one job of `queue` for `worker` (fails the test when none was claimed). */
export async function claimOne(storage: QueueStorage, queue: string, worker: string): Promise<JobRecord> {
  const [job] = await storage.claim([{ queue, limit: 1 }], worker, Date.now(), CONTRACT_LEASE);
  expect(job).toBeDefined();
  return job;
}
