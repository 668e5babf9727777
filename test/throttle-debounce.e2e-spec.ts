/**
 * Throttle (`keyTtl` with `key`) and debounce (`debounce` with `key`): a throttled key stays taken for its window
 * after the add that took it, even once its job finished, and an add inside the window returns that job; a burst of
 * debounced adds runs once, with the last data, after the last add's delay; a started job is not touched. Both hold
 * under concurrent adds from several OS processes. Bad input is refused with typed errors and writes nothing.
 *
 * The in-process tests mostly wait (a window, a delay), so their block runs the backends side by side
 * (test/support/side-by-side.ts): every test has its own database, app and record of runs.
 */
import { writeFileSync } from 'node:fs';
import { InvalidJobOptionsError, QueueAdmin, QueueProducer, SnoozeError } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { readLines, startChildApp } from './support/child-app';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perFileApp, perTestApp, MIGRATED } from './support/backends';
import { TestApps, itEachBackendConcurrently, withTestApps } from './support/side-by-side';

/** The throttle window of the in-process test: longer than a job's run and the wait that sees it, under load. */
const THROTTLE_WINDOW = 5000;
/** The debounce delay of the in-process tests: longer than a burst of adds takes, under load. */
const DEBOUNCE_DELAY = 2000;

/** One handler run, as a test's processors record it. */
interface Run {
  id: string;
  data: unknown;
  at: number;
}

/**
 * The two queues' processors for one app, recording into that app's own list: tests that run side by side cannot
 * share one. A debounced job whose data says `wait` holds its handler until `gate` is resolved.
 */
function recordingProcessors() {
  const ran: Run[] = [];
  const gate = deferred();
  const providers = [
    defineProcessor<{ n: number }>(
      'throttled',
      async (job) => {
        ran.push({ id: job.id, data: job.data, at: Date.now() });
        return job.data.n;
      },
      { concurrency: 2 },
    ),
    defineProcessor<{ n: number; wait?: boolean }>(
      'debounced',
      async (job) => {
        ran.push({ id: job.id, data: job.data, at: Date.now() });
        if (job.data.wait) await gate.promise;
        return job.data.n;
      },
      { concurrency: 2 },
    ),
  ];
  return { ran, gate, providers };
}

/** An app on the test's database with both processors: its producer, admin, and what its handlers ran. */
async function open(apps: TestApps) {
  const { ran, gate, providers } = recordingProcessors();
  const app = await apps.startApp({ module: { pollInterval: 50 }, providers });
  return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin), ran, gate };
}

describe('throttle and debounce keys (the backends side by side)', () => {
  itEachBackendConcurrently(
    'throttle: inside the window an add returns the job that took the key, even once it completed; after it, a new job',
    (backend) =>
      withTestApps(backend, async (apps) => {
        const { producer, admin, ran } = await open(apps);
        // The window must outlast the first job's run and the wait that sees it completed: 1.5 s did not at load 50-70
        // (the next add came after the window and made a new job), so the window is 5 s; the test waits it out once.
        const first = await producer.add('throttled', { n: 1 }, { key: 'report', keyTtl: THROTTLE_WINDOW });
        await waitFor(async () => (await admin.getJob(first.id))?.status === 'completed', 'the first job completed');
        const again = await producer.add('throttled', { n: 2 }, { key: 'report', keyTtl: THROTTLE_WINDOW });
        expect(again.id).toBe(first.id);
        expect(await admin.getCounts('throttled')).toMatchObject({ pending: 0, completed: 1 });
        // Every 50 ms, not 10: each try is an add, and the other backends' tests run in this process meanwhile.
        await waitFor(
          async () => (await producer.add('throttled', { n: 3 }, { key: 'report', keyTtl: THROTTLE_WINDOW })).id !== first.id,
          'the window closed',
          THROTTLE_WINDOW + 10_000,
          50,
        );
        await waitFor(async () => (await admin.getCounts('throttled')).completed === 2, 'the second job ran');
        expect(ran.map((run) => run.data)).toEqual([{ n: 1 }, { n: 3 }]);
      }),
  );

  itEachBackendConcurrently(
    'throttle: once the window closed while its job still waits, an add returns that pending job, with no key conflict',
    (backend) =>
      withTestApps(backend, async (apps) => {
        const { producer, admin, ran } = await open(apps);
        // Paused: the job stays pending past its window (`key` alone still holds it while it is pending).
        await admin.pause('throttled');
        const first = await producer.add('throttled', { n: 1 }, { key: 'late', keyTtl: 200 });
        const windowEnd = Date.now() + 200;
        await waitFor(() => Date.now() > windowEnd, 'the throttle window closed');
        const again = await producer.add('throttled', { n: 2 }, { key: 'late', keyTtl: 200 });
        expect(again.id).toBe(first.id);
        expect(await admin.getCounts('throttled')).toMatchObject({ pending: 1 });
        await admin.resume('throttled');
        await waitFor(async () => (await admin.getJob(first.id))?.status === 'completed', 'the first job ran');
        expect(ran.map((run) => run.data)).toEqual([{ n: 1 }]);
        // Finished and out of its window: the key is free.
        const third = await producer.add('throttled', { n: 3 }, { key: 'late', keyTtl: 200 });
        expect(third.id).not.toBe(first.id);
      }),
  );

  itEachBackendConcurrently(
    'debounce: a burst of 20 concurrent adds runs once, with the last data, its delay after the last add, under one id',
    (backend) =>
      withTestApps(backend, async (apps) => {
        const { producer, admin, ran } = await open(apps);
        const ids = new Set<string>();
        // When the last wave was sent: each of its adds commits after this, so the winner's run time is at least the
        // delay later. The queue is paused while the waves are sent, so the job cannot start before the last one
        // however long they take (2 s did not cover them on a loaded machine with the backends side by side: the
        // job ran and a later wave enqueued the next one); its run time is still the last add's plus the delay.
        await admin.pause('debounced');
        let lastWaveSent = 0;
        for (let wave = 0; wave < 4; wave++) {
          lastWaveSent = Date.now();
          const added = await Promise.all(
            Array.from({ length: 5 }, (_, i) =>
              producer.add('debounced', { n: wave * 5 + i }, { key: 'sync', debounce: true, delay: DEBOUNCE_DELAY }),
            ),
          );
          added.forEach((job) => ids.add(job.id));
        }
        expect(ids.size).toBe(1);
        const [id] = ids;
        const pending = (await admin.getJob(id))!;
        expect(pending.status).toBe('pending');
        expect(pending.key).toBe('sync');
        await admin.resume('debounced');
        await waitFor(async () => (await admin.getJob(id))?.status === 'completed', 'the debounced job ran');
        expect(ran).toHaveLength(1);
        expect(ran[0].at - lastWaveSent).toBeGreaterThanOrEqual(DEBOUNCE_DELAY - 5);
        // The last of the last wave's adds to commit wins; every add of that wave replaced the data after the earlier waves.
        expect((ran[0].data as { n: number }).n).toBeGreaterThanOrEqual(15);
        expect(await admin.getCounts('debounced')).toMatchObject({ pending: 0, running: 0, completed: 1 });
      }),
  );

  itEachBackendConcurrently(
    'debounce: a job waiting for its retry, or snoozed, has started: it is not touched; the add enqueues the next one',
    (backend) =>
      withTestApps(backend, async (apps) => {
        const runs: { queue: string; id: string; data: unknown }[] = [];
        const providers = [
          defineProcessor<{ n: number }>(
            'debounce-retry',
            async (job) => {
              runs.push({ queue: 'debounce-retry', id: job.id, data: job.data });
              if (job.data.n === 1) throw new Error('the first job fails');
            },
            { maxAttempts: 2, backoff: { type: 'fixed', delay: 3_600_000 } },
          ),
          defineProcessor<{ n: number }>('debounce-snooze', async (job) => {
            runs.push({ queue: 'debounce-snooze', id: job.id, data: job.data });
            if (job.data.n === 1) throw new SnoozeError(3_600_000);
          }),
        ];
        const app = await apps.startApp({ module: { pollInterval: 50 }, providers });
        const producer = app.get(QueueProducer);
        const admin = app.get(QueueAdmin);
        for (const queue of ['debounce-retry', 'debounce-snooze']) {
          const first = await producer.add(queue, { n: 1 }, { key: 'k', debounce: true });
          await waitFor(async () => {
            const job = await admin.getJob(first.id);
            return job?.status === 'pending' && (job.attempts === 1 || job.snoozes === 1);
          }, `${queue}: the first run ended in a retry or a snooze`);
          const next = await producer.add(queue, { n: 2 }, { key: 'k', debounce: true });
          expect({ queue, sameJob: next.id === first.id }).toEqual({ queue, sameJob: false });
          expect(await admin.getJob(first.id)).toMatchObject({ status: 'pending', data: { n: 1 } });
          await waitFor(async () => (await admin.getJob(next.id))?.status === 'completed', `${queue}: the next job ran`);
          expect(runs.filter((run) => run.queue === queue).map((run) => [run.id, run.data])).toEqual([
            [first.id, { n: 1 }],
            [next.id, { n: 2 }],
          ]);
        }
      }),
  );

  itEachBackendConcurrently('debounce: a running job is not touched; the add enqueues the next one, which later adds replace', (backend) =>
    withTestApps(backend, async (apps) => {
      const { producer, admin, ran, gate } = await open(apps);
      const first = await producer.add('debounced', { n: 1, wait: true }, { key: 'k', debounce: true });
      await waitFor(async () => (await admin.getJob(first.id))?.status === 'running', 'the first job runs');
      // The third add must come within the second's delay (200 ms did not at load 50-70).
      const second = await producer.add('debounced', { n: 2 }, { key: 'k', debounce: true, delay: DEBOUNCE_DELAY });
      const third = await producer.add('debounced', { n: 3 }, { key: 'k', debounce: true, delay: DEBOUNCE_DELAY });
      expect(second.id).not.toBe(first.id);
      expect(third.id).toBe(second.id);
      expect((await admin.getJob(first.id))!.data).toEqual({ n: 1, wait: true });
      gate.resolve();
      await waitFor(async () => (await admin.getCounts('debounced')).completed === 2, 'both ran');
      expect(ran.map((run) => run.data)).toEqual([{ n: 1, wait: true }, { n: 3 }]);
    }),
  );
});

/**
 * One backend after the other: four child starts are CPU, not waiting, so the backends side by side would only put
 * twelve processes on the two cores at once (beside the other files of the run) and finish no sooner.
 */
describeEachBackend('throttle and debounce keys across OS processes', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('four producers adding the same throttle key at once enqueue one job; the same debounce key, one pending job', async () => {
    // One set of four processes serves both races, each opened by its own gate file: a child start is most of this
    // test's time, and each race still starts in all four at once.
    const throttleGate = `${current.db.path}.go-throttle`;
    const debounceGate = `${current.db.path}.go-debounce`;
    const throttleLogs = [0, 1, 2, 3].map((i) => `${current.db.path}.throttle-ids${i}`);
    const debounceLogs = [0, 1, 2, 3].map((i) => `${current.db.path}.debounce-ids${i}`);
    const children = [0, 1, 2, 3].map((i) =>
      startChildApp({
        connection: current.db.options,
        module: { processing: false },
        produce: [
          {
            queue: 'throttled',
            count: 25,
            single: true,
            key: 'nightly',
            options: { keyTtl: 60_000 },
            gateFile: throttleGate,
            idLog: throttleLogs[i],
          },
          {
            queue: 'debounced',
            count: 25,
            single: true,
            key: 'sync',
            data: { n: i },
            options: { debounce: true, delay: 60_000 },
            gateFile: debounceGate,
            idLog: debounceLogs[i],
          },
        ],
        exitAfterProduce: true,
      }),
    );
    await Promise.all(children.map((child) => child.printed('READY')));
    writeFileSync(throttleGate, '');
    await waitFor(() => throttleLogs.every((log) => readLines(log).length === 25), 'every producer made its 25 throttled adds', 60_000);
    writeFileSync(debounceGate, '');
    expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0, 0, 0]);
    expect(new Set(throttleLogs.flatMap((log) => readLines(log))).size).toBe(1);
    expect(new Set(debounceLogs.flatMap((log) => readLines(log))).size).toBe(1);
    const { admin } = await open(current);
    // One read of every status: this app's processor may move the job from pending to claimed, running and completed meanwhile.
    const counts = await admin.getCounts('throttled');
    expect(counts.pending + counts.claimed + counts.running + counts.completed + counts.failed + counts.cancelled).toBe(1);
    expect(await admin.getCounts('debounced')).toMatchObject({ pending: 1, running: 0 });
    // Four child starts side by side: 35-56 s measured at load 40 on two cores (when each race had its own four).
  }, 180_000);
});

/**
 * The refusals are the producer's own checks, made before any statement reaches a backend: one backend (node-sqlite3)
 * and one app for the block. Each test still reads the counts, and nothing in this block writes.
 */
describeEachBackend(
  'throttle and debounce keys: bad input',
  (backend) => {
    const shared = perFileApp(backend, { module: { pollInterval: 50 }, providers: recordingProcessors().providers });
    let producer: QueueProducer;
    let admin: QueueAdmin;
    beforeAll(() => {
      producer = shared.get(QueueProducer);
      admin = shared.get(QueueAdmin);
    });

    it.each([
      ['keyTtl without key', { keyTtl: 1000 }],
      ['debounce without key', { debounce: true }],
      ['a negative keyTtl', { key: 'k', keyTtl: -1 }],
      ['a NaN keyTtl', { key: 'k', keyTtl: NaN }],
      ['a zero keyTtl', { key: 'k', keyTtl: 0 }],
      ['debounce not a boolean', { key: 'k', debounce: 'yes' }],
      ['keyTtl with debounce', { key: 'k', keyTtl: 1000, debounce: true }],
    ])('refuses %s with InvalidJobOptionsError and writes nothing', async (_, options) => {
      await expect(producer.add('throttled', { n: 1 }, options as object)).rejects.toThrow(InvalidJobOptionsError);
      await expect(producer.addBulk('throttled', [{ data: { n: 1 }, options: options as object }])).rejects.toThrow(InvalidJobOptionsError);
      expect((await admin.getCounts('throttled')).pending).toBe(0);
    });

    it('refuses keyTtl and debounce in addBulk (one job at a time only), writing nothing', async () => {
      await expect(producer.addBulk('throttled', [{ data: { n: 1 }, options: { key: 'a', keyTtl: 100 } }])).rejects.toThrow(
        InvalidJobOptionsError,
      );
      await expect(producer.addBulk('debounced', [{ data: { n: 1 }, options: { key: 'a', debounce: true } }])).rejects.toThrow(
        InvalidJobOptionsError,
      );
      expect((await admin.getCounts()).pending).toBe(0);
    });
  },
  ['sqlite3'],
);
