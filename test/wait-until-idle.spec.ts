/**
 * `waitUntilIdle` asks the storage one question per check, answered in one statement (`hasWork`): read as two
 * statements, a job moving between pending and running between them was in neither, and a busy queue passed for
 * idle. The statement itself is proven on every backend in storage-contract.e2e-spec.ts.
 */
import { JobEventBus } from '../lib/events/job-event-bus';
import { waitUntilIdle } from '../lib/admin/wait-until-idle';
import { WaitTimeoutError } from '../lib/errors/wait-timeout.error';
import { QueueStorage } from '../lib/storage/queue-storage.interface';

/** A storage whose `hasWork` answers from `busy`, recording each question; nothing else may be asked. */
function storageAnswering(busy: (call: number) => boolean) {
  const asked: { queue: string | undefined; now: number }[] = [];
  const storage = {
    hasWork: async (queue: string | undefined, now: number) => {
      asked.push({ queue, now });
      return busy(asked.length);
    },
  } as unknown as QueueStorage;
  return { storage, asked };
}

describe('waitUntilIdle (unit)', () => {
  it('asks the storage one question per check, for the queue and the current time, until the answer is "no work"', async () => {
    const { storage, asked } = storageAnswering((call) => call < 3);
    const before = Date.now();
    await waitUntilIdle(storage, new JobEventBus(), { queue: 'q', timeout: 5_000, interval: 1 });
    expect(asked).toHaveLength(3);
    for (const question of asked) {
      expect(question.queue).toBe('q');
      expect(question.now).toBeGreaterThanOrEqual(before);
    }
  });

  it('asks of every queue when none is named', async () => {
    const { storage, asked } = storageAnswering(() => false);
    await waitUntilIdle(storage, new JobEventBus(), { timeout: 1_000, interval: 1 });
    expect(asked).toEqual([{ queue: undefined, now: expect.any(Number) }]);
  });

  it('times out with WaitTimeoutError while the storage still reports work', async () => {
    const { storage } = storageAnswering(() => true);
    await expect(waitUntilIdle(storage, new JobEventBus(), { queue: 'q', timeout: 30, interval: 10 })).rejects.toBeInstanceOf(
      WaitTimeoutError,
    );
  });

  it('times out at its timeout when that is shorter than the pause between two checks, not one pause later', async () => {
    const { storage, asked } = storageAnswering(() => true);
    const started = Date.now();
    await expect(waitUntilIdle(storage, new JobEventBus(), { queue: 'q', timeout: 50, interval: 60_000 })).rejects.toBeInstanceOf(
      WaitTimeoutError,
    );
    // Well under the 60 s pause, with room for a loaded machine; the deadline's check comes before the error (a timer
    // may fire a millisecond before Date.now() reaches its time: then one more short pause and check).
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(asked.length).toBeGreaterThanOrEqual(2);
  }, 5_000);
});
