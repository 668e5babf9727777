/**
 * The finish watcher behind every `waitUntilFinished`, against a storage stub and a poll far longer than any test:
 * what settles a wait at once (its first look, this process's own events) must not be left to the poll, and the
 * waiters' heartbeat must be written before the first look reads the job (while it is fresh, a completion keeps
 * the row of a job whose retention keeps nothing: a job that finishes after the look is read completed, not gone).
 */
import { Logger } from '@nestjs/common';
import { StorageError } from '../lib/errors/storage.error';
import { FinishWatcher } from '../lib/events/finish-watcher';
import { JobEventBus } from '../lib/events/job-event-bus';
import { JobStatus } from '../lib/interfaces/job-info.interface';
import { JobRecord, WaitedJobs } from '../lib/storage/queue-storage.interface';
import { runningRecord } from './support/job-record';

/** Far beyond each wait's timeout: a wait the poll settles fails its test with WaitTimeoutError. */
const LONG_POLL = 600_000;
const WAIT_TIMEOUT = 3_000;

const logger = new Logger('finish-watcher.spec');

function record(id: string, status: JobStatus): JobRecord {
  const finished = status === 'completed' || status === 'failed' || status === 'cancelled';
  return runningRecord({ id, status, lockedBy: null, leaseUntil: null, finishedAt: finished ? Date.now() : null }, 0);
}

/** A storage whose jobs are in `statuses` (by id), recording what it was asked, in order. */
function storageOf(statuses: Map<string, JobStatus>, markFinishWaiters?: () => Promise<void>) {
  const asked: string[] = [];
  const storage = {
    getJob: async (id: string) => {
      asked.push(`getJob ${id}`);
      const status = statuses.get(id);
      return status === undefined ? null : record(id, status);
    },
    getWaitedJobs: async (ids: string[]): Promise<WaitedJobs> => {
      asked.push(`getWaitedJobs ${ids.join(',')}`);
      const finished = ids.filter((id) => ['completed', 'failed', 'cancelled'].includes(statuses.get(id) ?? ''));
      return { finished: finished.map((id) => record(id, statuses.get(id)!)), gone: ids.filter((id) => !statuses.has(id)) };
    },
    ...(markFinishWaiters ? { markFinishWaiters } : {}),
  };
  return { storage, asked };
}

describe('FinishWatcher (unit)', () => {
  let watcher: FinishWatcher | undefined;
  afterEach(() => {
    watcher?.close();
    watcher = undefined;
  });

  it.each(['completed', 'failed', 'cancelled'] as const)('a wait for a job already %s resolves from its first look', async (status) => {
    const { storage, asked } = storageOf(new Map([['7', status]]));
    watcher = new FinishWatcher(async () => storage, new JobEventBus(), LONG_POLL, logger);
    const found = await watcher.wait('7', WAIT_TIMEOUT);
    expect(found).toMatchObject({ id: '7', status });
    expect(asked).toEqual(['getJob 7']);
  });

  it.each(['completed', 'failed', 'cancelled'] as const)(
    'a %s event of this process for a waited job settles the wait at once, from one look, not at the next poll',
    async (status) => {
      const statuses = new Map<string, JobStatus>([['7', 'running']]);
      const { storage, asked } = storageOf(statuses);
      const bus = new JobEventBus();
      watcher = new FinishWatcher(async () => storage, bus, LONG_POLL, logger);
      const wait = watcher.wait('7', WAIT_TIMEOUT);
      // The first look found it running: only the event can end the wait in time.
      while (!asked.includes('getJob 7')) await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      statuses.set('7', status);
      bus.emit({ type: status, queue: 'q', jobId: '7', attempt: 1 } as never);
      expect(await wait).toMatchObject({ id: '7', status });
      expect(asked).toEqual(['getJob 7', 'getWaitedJobs 7']);
    },
  );

  it("writes the waiters' heartbeat before the first look reads the job", async () => {
    const order: string[] = [];
    const { storage } = storageOf(new Map([['7', 'completed']]), async () => {
      order.push('heartbeat asked');
      // Written on a later turn: a first look that does not wait for it reads the job first.
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('heartbeat written');
    });
    const getJob = storage.getJob;
    storage.getJob = async (id: string) => {
      order.push('first look');
      return getJob(id);
    };
    watcher = new FinishWatcher(async () => storage, new JobEventBus(), LONG_POLL, logger);
    expect(await watcher.wait('7', WAIT_TIMEOUT)).toMatchObject({ status: 'completed' });
    expect(order).toEqual(['heartbeat asked', 'heartbeat written', 'first look']);
  });

  it('a first look the database fails for now (a connection lost) leaves the wait to the poll, which settles it', async () => {
    const statuses = new Map<string, JobStatus>([['7', 'running']]);
    const { storage, asked } = storageOf(statuses);
    const lost = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const firstLook = storage.getJob;
    storage.getJob = async (id: string) => {
      if (!asked.includes(`getJob ${id}`)) {
        asked.push(`getJob ${id}`);
        throw lost;
      }
      return firstLook(id);
    };
    watcher = new FinishWatcher(async () => storage, new JobEventBus(), 50, logger);
    const wait = watcher.wait('7', WAIT_TIMEOUT);
    while (!asked.includes('getJob 7')) await new Promise((resolve) => setImmediate(resolve));
    statuses.set('7', 'completed');
    expect(await wait).toMatchObject({ id: '7', status: 'completed' });
    expect(asked[0]).toBe('getJob 7');
    expect(asked).toContain('getWaitedJobs 7');
  });

  it("a first look that fails for good rejects with a StorageError naming the wait, the driver's error as its cause", async () => {
    const { storage } = storageOf(new Map([['7', 'running']]));
    const broken = Object.assign(new Error('no such column: finished_at'), { code: 'SQLITE_ERROR' });
    storage.getJob = async () => {
      throw broken;
    };
    watcher = new FinishWatcher(async () => storage, new JobEventBus(), LONG_POLL, logger);
    const error = await watcher.wait('7', WAIT_TIMEOUT).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ operation: 'waitUntilFinished', transient: false, cause: broken });
    expect(String((error as Error).message)).toContain('job 7');
  });

  it('a wait whose first look failed for good is no longer read by the poll', async () => {
    const statuses = new Map<string, JobStatus>([
      ['7', 'running'],
      ['8', 'running'],
    ]);
    const { storage, asked } = storageOf(statuses);
    const broken = Object.assign(new Error('no such column: finished_at'), { code: 'SQLITE_ERROR' });
    const look = storage.getJob;
    storage.getJob = async (id: string) => {
      if (id !== '7') return look(id);
      asked.push(`getJob ${id}`);
      throw broken;
    };
    watcher = new FinishWatcher(async () => storage, new JobEventBus(), 50, logger);
    await expect(watcher.wait('7', WAIT_TIMEOUT)).rejects.toBeInstanceOf(StorageError);
    // Another wait keeps the poll going: the ended wait's job must not be in what it reads.
    const other = watcher.wait('8', WAIT_TIMEOUT);
    while (!asked.some((entry) => entry.startsWith('getWaitedJobs'))) await new Promise((resolve) => setTimeout(resolve, 5));
    statuses.set('8', 'completed');
    expect(await other).toMatchObject({ id: '8', status: 'completed' });
    expect(asked.filter((entry) => entry.startsWith('getWaitedJobs')).every((entry) => entry === 'getWaitedJobs 8')).toBe(true);
  });
});
