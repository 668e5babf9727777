/**
 * What every storage contract module (`test/storage-contract/*.contract.ts`, one per role or group of roles of
 * `QueueStorage`, all run by `test/storage-contract.e2e-spec.ts`) shares: a
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

/**
 * Every member of `QueueStorage` a contract case called, per backend (method calls and property reads through
 * `recordingStorage`): the runner's last case checks that every member of every role is among them on every backend
 * of the run, so a member is covered by a case that exercises it, not by a mention.
 */
export const CONTRACT_CALLS = new Map<string, Set<string>>();

/**
 * `storage` with every member call and property read recorded under `backend` in `CONTRACT_CALLS`. Methods run on the
 * storage itself (`this` is the real object), so nothing else changes.
 */
export function recordingStorage<T extends object>(storage: T, backend: string): T {
  const calls = CONTRACT_CALLS.get(backend) ?? new Set<string>();
  CONTRACT_CALLS.set(backend, calls);
  return new Proxy(storage, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof property !== 'string') return value;
      if (typeof value !== 'function') {
        calls.add(property);
        return value;
      }
      // A test's own spy (jest.spyOn reads back what it set): the spy itself, so the test can drive it.
      if ((value as { _isMockFunction?: boolean })._isMockFunction === true) return value;
      return (...args: unknown[]) => {
        calls.add(property);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

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

/**
 * The attempt a claimed job is in, with the start its handler would have had (a claimed record's `startedAt` is its
 * claim's time; the row's stays unset until a write carries one), as the worker's writes carry it.
 */
export function ref(job: Pick<JobRecord, 'id' | 'attempts'> & { startedAt?: number | null }): AttemptRef {
  return typeof job.startedAt === 'number'
    ? { id: job.id, attempt: job.attempts, startedAt: job.startedAt }
    : { id: job.id, attempt: job.attempts };
}

/** A fresh, initialised storage of `backend`, on a migrated database, for each test of the enclosing describe, closed after it. */
export function contractStorage(backend: Backend): { readonly storage: QueueStorage; readonly db: TestDatabase } {
  const current: { storage?: QueueStorage; raw?: QueueStorage; db?: TestDatabase } = {};
  beforeEach(async () => {
    current.db = await backend.migratedDatabase();
    // Set up and torn down outside the recording: a contract case that exercises initialize or close calls it itself.
    current.raw = createQueueStorage(resolveModuleOptions({ ...current.db.options }));
    await current.raw.initialize();
    current.storage = recordingStorage(current.raw, backend.name);
  });
  afterEach(async () => {
    await current.raw?.close();
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
