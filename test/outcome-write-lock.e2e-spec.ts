/**
 * Another OS process holds SQLite's write lock for 3 s, past the app's busy timeout, while a handler snoozes or throws
 * RateLimitError: the write of that outcome meets SQLITE_BUSY and is retried like a completion, so the job goes back
 * unspent and runs again. Were it dropped, the job would stay running until its lease expired and recovery would spend
 * its only attempt (LeaseExpiredError).
 */
import { TestingModule } from '@nestjs/testing';
import { Job, Processor, QueueAdmin, QueueProcessor, QueueProducer, RateLimitError, SnoozeError } from '../lib';
import { ChildApp, startLockHolder } from './support/child-app';
import { SHORT_BUSY_TIMEOUT } from './support/test-timings';
import { deferred, waitFor } from './support/wait-for';
import { describeEachSqlite, perTestApp, MIGRATED } from './support/backends';

const runs = new Map<string, number>();
let gate = deferred<void>();

/** The first run of each job waits for the gate, then throws what `data.throws` names; the second run completes. */
@Processor('held', { maxAttempts: 1 })
class HeldProcessor implements QueueProcessor<{ throws: 'snooze' | 'rateLimit' }, string> {
  async process(job: Job<{ throws: 'snooze' | 'rateLimit' }>): Promise<string> {
    const run = (runs.get(job.id) ?? 0) + 1;
    runs.set(job.id, run);
    if (run > 1) return 'done';
    await gate.promise;
    throw job.data.throws === 'snooze' ? new SnoozeError(100) : new RateLimitError(100);
  }
}

describeEachSqlite('an unbatched outcome write under a held write lock', (backend) => {
  let holder: ChildApp | undefined;
  beforeEach(() => {
    runs.clear();
    gate = deferred<void>();
  });
  afterEach(async () => {
    gate.resolve();
    await holder?.kill();
    holder = undefined;
  });
  const current = perTestApp(backend, MIGRATED);

  for (const throws of ['snooze', 'rateLimit'] as const) {
    it(`${throws}: the write is retried past SQLITE_BUSY; the job runs again with its attempt unspent`, async () => {
      const app: TestingModule = await current.startApp({
        module: { pollInterval: 100, busyTimeout: SHORT_BUSY_TIMEOUT },
        providers: [HeldProcessor],
      });
      const admin = app.get(QueueAdmin);
      const job = await app.get(QueueProducer).add('held', { throws });
      await waitFor(() => runs.get(job.id) === 1, 'the first run started');

      holder = startLockHolder(current.db.path, 3000);
      await holder.printed('LOCKED');
      gate.resolve(); // the outcome's write now meets the lock, longer than SQLite waits at once
      expect(await holder.exited).toBe(0);

      // Well within the 30 s lease: only a retried write brings the job back this soon.
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the job ran again and completed', 15_000);
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', attempts: 1, error: null, result: 'done' });
      if (throws === 'snooze') expect(await admin.getJob(job.id)).toMatchObject({ snoozes: 1 });
      expect(runs.get(job.id)).toBe(2);
    });
  }
});
