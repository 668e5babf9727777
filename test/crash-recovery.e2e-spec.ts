/**
 * Crash recovery across OS processes: a worker killed with SIGKILL (no shutdown hook runs) leaves its jobs
 * `running` under a lease nobody renews; the next process takes them back. Each run is recorded by the child
 * apps in a run log ("queue id attempt pid" per handler start) and a done log (per handler return). The jobs that
 * kill their own process on every attempt are in crash-recovery-poison.e2e-spec.ts (a file of their own, so that
 * the two halves run on two workers side by side).
 */
import type { JobInfo } from '../lib';
import { readRunLog } from './support/child-app';
import { waitFor } from './support/wait-for';
import { describeEachBackend } from './support/backends';
import { shortLeases } from './support/test-timings';
import { crashWorkers } from './support/crash-workers';

describeEachBackend('crash recovery (kill -9 of a worker process)', (backend) => {
  const { current, openObserver, startWorker, startStandbyWorker } = crashWorkers(backend);

  // The default prefetch ('auto') lets a slot start its next job once the outcome is handed to the writer; `prefetch: 0`
  // only once it is written, which halves the window of handlers a kill runs again (docs/delivery-and-crash-safety.md).
  it.each([
    { label: "'auto', the default", prefetch: undefined, window: 3 },
    { label: '0', prefetch: 0, window: 1 },
  ])(
    'kill -9 in the middle of 2,000 jobs (prefetch $label): a new process finishes them all; only the jobs in flight at the kill run twice, at most $window × concurrency',
    async ({ prefetch, window }) => {
      const runLog = `${current.db.path}.runs`;
      const doneLog = `${current.db.path}.done`;
      const concurrency = 8;
      const { producer, admin } = await openObserver();
      const jobs = await producer.addBulk(
        'crash',
        // Varied short sleeps, and every 20th job a longer one, so the worker always has jobs in flight
        // (equal sleeps make the 8 slots finish together, leaving instants with nothing running).
        Array.from({ length: 2000 }, (_, n) => ({ data: { n, sleep: n % 20 === 0 ? 250 : 1 + (n % 9) } })),
      );
      expect(jobs).toHaveLength(2000);

      const workerConfig = {
        runLog,
        doneLog,
        module: shortLeases(backend),
        queues: [{ name: 'crash', concurrency, ...(prefetch === undefined ? {} : { prefetch }) }],
      };
      const first = startWorker(workerConfig);
      const firstPid = first.process.pid!;
      // Its boot is not bounded by anything of ours (see the test's timeout); 400 jobs then take a few seconds.
      await first.printed('READY');
      // The second process loads meanwhile (most of a start) and boots once the first is dead and its state read.
      const second = startStandbyWorker(workerConfig);
      await waitFor(() => readRunLog(runLog).length >= 400, 'the first worker started 400 jobs', 60_000);
      expect(await first.kill()).toBe('SIGKILL');

      const afterKill = await admin.getCounts('crash');
      // The premise: the killed process left jobs claimed under its (now unrenewed) lease, and work remains. Those a
      // handler had count `running`, those claimed ahead and not started `claimed`: both are held.
      const held = afterKill.running + afterKill.claimed;
      expect(held).toBeGreaterThan(0);
      // At most what the default `prefetch: 'auto'` lets a process hold: its slots' running jobs, the outcomes handed
      // to the writer and not yet landed (the finished job still reads running beside its successor), and the jobs
      // claimed ahead for slots about to free, 3 × concurrency in all (docs/architecture.md). `prefetch: 0` held c
      // (SQLite) / 2c.
      expect(held).toBeLessThanOrEqual(3 * concurrency);
      expect(afterKill.pending).toBeGreaterThan(0);
      // Nothing writes now (the first process is dead, the second not started): take the exact set it held, in one
      // read (2,000 reads of one job each took seconds on a loaded machine, PostgreSQL most).
      const heldAtKill = new Set((await admin.getJobs('crash', { status: 'running', limit: 1000 })).map((job) => job.id));
      expect(heldAtKill.size).toBe(held);
      const startedByFirst = readRunLog(runLog).filter((run) => run.pid === firstPid);
      const doneByFirst = new Set(readRunLog(doneLog).map((run) => run.id));
      expect(startedByFirst.length).toBeLessThan(2000);

      await second.boot();
      const secondPid = second.process.pid!;
      // Meanwhile, sample the running jobs: each must have an owner and a lease (never running without one). A job
      // claimed ahead has no start yet (`startedAt` null, counted `claimed`): that is no missing lease.
      const withoutLease: unknown[] = [];
      let runningSeen = 0;
      await waitFor(
        async () => {
          for (const job of await admin.getJobs('crash', { status: 'running', limit: 1000 })) {
            runningSeen++;
            if (job.lockedBy === null || job.leaseUntil === null || job.attempts < 1) withoutLease.push(job);
          }
          return (await admin.getCounts('crash')).completed === 2000;
        },
        'all 2,000 jobs completed',
        120_000,
        50,
      );
      expect(await second.stop()).toBe(0);
      expect(runningSeen).toBeGreaterThan(0);
      // The processes table tells the two ends apart: the process that shut down says so; the one killed -9 never
      // could (it reads live until its announcement lapses, then lost: test/operator-admin.e2e-spec.ts).
      const lives = (await admin.listProcesses()).processes;
      const lifeOf = (pid: number) => lives.find((life) => life.workerId.split(':')[1] === String(pid));
      expect(lifeOf(secondPid)).toMatchObject({ state: 'stopped', processors: [{ queue: 'crash', concurrency }] });
      expect(lifeOf(firstPid)).toMatchObject({ stoppedAt: null, processors: [{ queue: 'crash', concurrency }] });
      expect(['live', 'lost']).toContain(lifeOf(firstPid)!.state);
      expect(withoutLease).toEqual([]);

      expect(await admin.getCounts('crash')).toMatchObject({ pending: 0, running: 0, completed: 2000, failed: 0 });
      const runs = readRunLog(runLog);
      expect(new Set(runs.map((run) => run.pid))).toEqual(new Set([firstPid, secondPid]));
      const runsPerId = new Map<string, number>();
      for (const run of runs) runsPerId.set(run.id, (runsPerId.get(run.id) ?? 0) + 1);
      expect(runsPerId.size).toBe(2000);
      const twice = [...runsPerId].filter(([, count]) => count > 1).map(([id]) => id);
      expect([...runsPerId.values()].every((count) => count <= 2)).toBe(true);
      // In flight at the kill = started by the first process and not finished there (or finished, but the
      // outcome was not yet saved). Those, and only those, may run twice: as many as it held at the kill.
      const startedNotDone = startedByFirst.filter((run) => !doneByFirst.has(run.id)).map((run) => run.id);
      expect(twice.length).toBeLessThanOrEqual(heldAtKill.size);
      // The crash re-run window docs/delivery-and-crash-safety.md states: the handlers running at the kill (at most
      // `concurrency`) and, unless `prefetch: 0`, the finished ones whose outcome had not landed (the worker lets at
      // most `2 × concurrency` of those be in writing with 'auto'; 17 of 24 was seen on a loaded machine). Jobs claimed
      // ahead had not started: they run once, elsewhere.
      expect(twice.length).toBeLessThanOrEqual(window * concurrency);
      for (const id of twice) expect(heldAtKill).toContain(id);
      for (const id of startedNotDone) expect(twice).toContain(id);
      // The second run of each is the second process's, and it counted as a second attempt.
      for (const id of twice) {
        const [a, b] = runs.filter((run) => run.id === id);
        expect([a.pid, a.attempt, b.pid, b.attempt]).toEqual([firstPid, 1, secondPid, 2]);
      }
      // The jobs held at the kill were recovered and the crashed run counted as an attempt; no other job
      // used more than one attempt, and none kept an owner or a lease.
      // Read in two pages of 1,000 (nothing writes any more, so the pages neither overlap nor miss a job).
      const finalInfo = new Map<string, JobInfo>();
      for (const offset of [0, 1000])
        for (const info of await admin.getJobs('crash', { limit: 1000, offset })) finalInfo.set(info.id, info);
      expect(finalInfo.size).toBe(2000);
      for (const job of jobs) {
        const info = finalInfo.get(job.id);
        expect(info).toMatchObject({ status: 'completed', attempts: heldAtKill.has(job.id) ? 2 : 1, lockedBy: null, leaseUntil: null });
      }
      // Measured at load 17 on two cores, when children booted through ts-node: 56 s, of which the two process starts
      // took 45 s and the 2,000 jobs 9 s. Compiled children start in seconds; the bound still allows a loaded machine.
    },
    180_000,
  );
});
