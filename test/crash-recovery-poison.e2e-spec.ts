/**
 * Crash recovery of a poison job: a job whose handler kills its process (SIGKILL, no shutdown hook runs) on every
 * attempt. Its lease runs out each time, the next process takes it back, and after maxAttempts it ends failed;
 * the jobs claimed beside it are not taken down with it every time. Split from crash-recovery.e2e-spec.ts, whose
 * 2,000-job kill runs on another jest worker meanwhile.
 *
 * Every test of every backend runs side by side (`itConcurrentlyOnEachBackend`: `it.concurrent` in one describe
 * block), each on a database, an observer app and worker processes of its own (test/support/process-scenario.ts):
 * each spends most of its time waiting for leases to run out, recovery and its jitter, and processes loading, which
 * overlap. A block per backend, one after another, waited three times as long. The pair test is registered first:
 * its 3 s leases make it the longest, and jest starts five concurrent tests at once, the sixth when one ends.
 */
import { readRunLog } from './support/child-app';
import { shortLeases } from './support/test-timings';
import { itConcurrentlyOnEachBackend } from './support/process-scenario';

/**
 * Each test's bound: four process starts of its own (a few seconds each from compiled JavaScript, more on a loaded
 * machine) and three lease expiries, each followed by a recovery period and the recovery jitter, while the file's
 * other tests load and boot theirs on the same cores, so a test lasts about as long as the file: 93 s for the
 * longest at load 20 with five side by side (it was 175 s at load 60 with two).
 */
const FOUR_STARTS_THREE_RECOVERIES = 360_000;

describe('crash recovery of a job that kills its process (kill -9 of a worker process)', () => {
  itConcurrentlyOnEachBackend(
    'a job that kills its process on every attempt does not take the job claimed beside it down each time',
    async ({ db, producer, admin, runWorkerUntil }, backend) => {
      const runLog = `${db.path}.runs`;
      // Claimed together by the first process (one addBulk, two slots); the innocent job is still running when the
      // poison kills the process (the kill comes within a millisecond of the poison's start, its 20 ms sleep is far
      // longer). Without recovery spreading them apart, both are requeued due at once, claimed together again, and the
      // innocent job loses an attempt on every crash until it fails with the poison.
      const [poison, innocent] = await producer.addBulk('pair', [
        { data: { kill: true }, options: { maxAttempts: 3 } },
        { data: { sleep: 20 }, options: { maxAttempts: 3 } },
      ]);
      // Not the short test lease: recovery spreads jobs over min(leaseDuration, 10 s), and the innocent job is taken
      // down again by chance when the poison falls due while it runs (its 20 ms, plus the claim's and the outcome's
      // latency): about (0.02 s + latency) / window. It was a 100 ms job, (0.1 s + latency) / 3 s, some 5% a run on a
      // loaded machine; nothing in the claim needs the innocent job to run long, only to be claimed with the poison.
      // The spread itself is pinned down on an injected clock in storage-clock.e2e-spec.ts.
      // Without the spread the two are due at once, claimed together, and the innocent fails with the poison: always.
      const workerConfig = {
        runLog,
        module: { ...shortLeases(backend), leaseDuration: 3000 },
        queues: [{ name: 'pair', concurrency: 2 }],
      };

      const settled = async () =>
        (await admin.getJob(poison.id))?.status === 'failed' &&
        (await admin.getJob(innocent.id))?.status !== 'running' &&
        (await admin.getJob(innocent.id))?.status !== 'pending';
      const exits: (number | string)[] = [];
      while (!(await settled())) {
        expect(exits.length).toBeLessThanOrEqual(3);
        // The fourth run only recovers: no fifth process is loaded for it.
        const exit = await runWorkerUntil(workerConfig, settled, 'poison failed and innocent finished', { last: exits.length === 3 });
        if (exit !== null) exits.push(exit);
      }

      expect(exits).toEqual(['SIGKILL', 'SIGKILL', 'SIGKILL']);
      expect(await admin.getJob(poison.id)).toMatchObject({ status: 'failed', attempts: 3 });
      expect(await admin.getJob(innocent.id)).toMatchObject({ status: 'completed' });
      // The first crash takes it (claimed in one go with the poison); after that it runs on its own.
      expect(readRunLog(runLog).filter((run) => run.id === innocent.id).length).toBeLessThanOrEqual(2);
    },
    FOUR_STARTS_THREE_RECOVERIES,
  );

  itConcurrentlyOnEachBackend(
    'a job that kills its process on every attempt ends failed after maxAttempts recoveries; its neighbours complete',
    async ({ db, producer, admin, runWorkerUntil }, backend) => {
      const runLog = `${db.path}.runs`;
      const killer = await producer.add('crashy', { kill: true }, { maxAttempts: 3 });
      // Neighbours in flight when the process dies lose an attempt too: give them room for three crashes.
      const neighbours = await producer.addBulk(
        'crashy',
        Array.from({ length: 30 }, (_, n) => ({ data: { n, sleep: 5 }, options: { maxAttempts: 10 } })),
      );
      const workerConfig = { runLog, module: shortLeases(backend), queues: [{ name: 'crashy', concurrency: 2 }] };

      const exits: (number | string)[] = [];
      const done = async () =>
        (await admin.getJob(killer.id))?.status === 'failed' && (await admin.getCounts('crashy')).completed === neighbours.length;
      while (!(await done())) {
        expect(exits.length).toBeLessThanOrEqual(3); // three crashes, then a fourth process only recovers
        const exit = await runWorkerUntil(workerConfig, done, 'killer failed and neighbours completed', { last: exits.length === 3 });
        if (exit !== null) exits.push(exit);
      }

      expect(exits).toEqual(['SIGKILL', 'SIGKILL', 'SIGKILL']);
      const info = await admin.getJob(killer.id);
      expect(info).toMatchObject({ status: 'failed', attempts: 3, maxAttempts: 3, lockedBy: null, leaseUntil: null });
      expect(info!.finishedAt).toBeInstanceOf(Date);
      expect(info!.error).toMatchObject({ name: 'LeaseExpiredError', attempt: 3 });
      expect(info!.error!.message).toMatch(/lease expired/i);
      // Each attempt ran exactly once, each in a different process (each of which it killed).
      const killerRuns = readRunLog(runLog).filter((run) => run.id === killer.id);
      expect(killerRuns.map((run) => run.attempt)).toEqual([1, 2, 3]);
      expect(new Set(killerRuns.map((run) => run.pid)).size).toBe(3);
      expect(await admin.getCounts('crashy')).toMatchObject({ pending: 0, running: 0, completed: 30, failed: 1 });
      for (const job of neighbours) expect((await admin.getJob(job.id))?.status).toBe('completed');
    },
    FOUR_STARTS_THREE_RECOVERIES,
  );
});
