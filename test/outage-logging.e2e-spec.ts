/**
 * A database outage, simulated by making every background statement of a running app fail: each background loop
 * (claims, lease recovery, schedules) logs once when it starts failing, backs off instead of retrying at full
 * rate, and logs once when it works again. The app then processes jobs as before.
 */
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { defineProcessor } from './fixtures/define-processor';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { SHORT_POLL_INTERVAL, shortLeases } from './support/test-timings';

const POLL_INTERVAL = SHORT_POLL_INTERVAL;
const OUTAGE_MS = 3000;
/** The statements of the background loops; the test's own reads go through others. */
const FAILING = ['claim', 'recoverExpiredLeases', 'dueSchedules', 'extendLeases', 'findCancelled', 'applyRetention'] as const;

describeEachBackend('database outage: background loops', (backend) => {
  const ctx = perTestApp(backend, MIGRATED);

  it('log once per loop while the database is down, back off, and log once when it is back', async () => {
    ctx.app = await Test.createTestingModule({
      // A short lease (test-timings.ts): lease recovery runs every max(poll, lease / 2), well within the outage.
      imports: [SqliteQueueModule.forRoot({ ...ctx.db.options, ...shortLeases(backend) })],
      providers: [defineProcessor('outage', async () => 'done')],
    }).compile();
    await ctx.app.init();
    const producer = ctx.app.get(QueueProducer);
    const admin = ctx.app.get(QueueAdmin);
    const storage = await ctx.app.get(QueueRuntime).storage();
    const first = await producer.add('outage', {});
    await waitFor(async () => (await admin.getJob(first.id))?.status === 'completed', 'a job completed before the outage');

    const errors: string[] = [];
    const infos: string[] = [];
    const errorSpy = jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
    const logSpy = jest.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => void infos.push(String(message)));
    const calls = new Map<string, number>();
    const target = storage as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const originals = new Map(FAILING.map((name) => [name, target[name]]));
    for (const name of FAILING) {
      target[name] = async () => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      };
    }
    try {
      await waitFor(() => (calls.get('claim') ?? 0) > 0 && (calls.get('dueSchedules') ?? 0) > 0, 'the loops hit the outage');
      const start = Date.now();
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      const elapsed = Date.now() - start;

      // One line per failing loop, not one per try. The poller and the scheduler always fail here; lease recovery,
      // the heartbeat (an attempt still held while its outcome is saved) and retention fail too when their turn comes
      // round within the outage, which a loaded machine decides.
      const loops = errors.map((line) => /^(.*?) failed; retrying/.exec(line)?.[1].replace(/ of worker .*/, '') ?? line);
      expect(loops).toEqual([...new Set(loops)]);
      expect(loops).toEqual(expect.arrayContaining(['Claiming jobs', 'Reading due schedules']));
      const knownLoops = ['Claiming jobs', 'Reading due schedules', 'Recovering expired leases', 'Heartbeat', 'Applying retention'];
      for (const loop of loops) expect(knownLoops).toContain(loop);
      // Backing off: at full rate the poller and the scheduler would try every POLL_INTERVAL.
      const fullRate = elapsed / POLL_INTERVAL;
      expect(calls.get('claim')!).toBeLessThan(fullRate / 3);
      expect(calls.get('dueSchedules')!).toBeLessThan(fullRate / 3);
    } finally {
      for (const [name, original] of originals) target[name] = original;
    }

    const second = await producer.add('outage', {});
    await waitFor(async () => (await admin.getJob(second.id))?.status === 'completed', 'a job completed after the outage', 20_000);
    await waitFor(() => infos.some((line) => /claiming jobs works again/i.test(line)), 'the poller said it works again', 20_000);
    await waitFor(() => infos.some((line) => /reading due schedules works again/i.test(line)), 'the scheduler said it works again', 20_000);
    errorSpy.mockRestore();
    logSpy.mockRestore();
  }, 60_000);
});
