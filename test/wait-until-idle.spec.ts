/**
 * `waitUntilIdle` reads pending and running jobs in separate statements, each seeing its own moment. A claim that
 * commits between them must not make a busy queue pass for idle: the job moves from pending to running, so the reads
 * go pending first, running after.
 */
import { JobEventBus } from '../lib/events/job-event-bus';
import { waitUntilIdle } from '../lib/admin/wait-until-idle';
import { WaitTimeoutError } from '../lib/errors/wait-timeout.error';
import { QueueStorage } from '../lib/storage/queue-storage.interface';

/** One job of queue `q`, claimed (pending → running) the moment any read has been answered, as by another connection. */
function storageClaimingBetweenReads(): QueueStorage {
  let status: 'pending' | 'running' = 'pending';
  const answered = <T>(value: T): Promise<T> => {
    status = 'running';
    return Promise.resolve(value);
  };
  return {
    getCounts: async () => answered([{ queue: 'q', status, count: 1 }]),
    oldestDuePending: async (now: number) => answered(status === 'pending' ? [{ queue: 'q', runAt: now - 1 }] : []),
    getPausedQueues: async () => [],
  } as unknown as QueueStorage;
}

describe('waitUntilIdle (unit)', () => {
  it('does not take a queue for idle when its job is claimed between the pending and the running read', async () => {
    const storage = storageClaimingBetweenReads();
    await expect(waitUntilIdle(storage, new JobEventBus(), { queue: 'q', timeout: 30, interval: 10 })).rejects.toBeInstanceOf(
      WaitTimeoutError,
    );
  });
});
