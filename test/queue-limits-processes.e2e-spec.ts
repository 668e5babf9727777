/**
 * Queue limits held by OS processes together: one rate limiter shared by ten processes, and a global concurrency
 * that a process killed with -9 does not leave exceeded (nor its slots held once its leases expired).
 *
 * The two tests of a backend run side by side (`it.concurrent`), each on a database, an observer app and processes
 * of its own (test/support/process-scenario.ts): the kill waits for a lease to run out while the ten processes
 * load and run. The backends stay one after another: ten processes loading is CPU (over a second each), and thirty
 * at once on two cores only made each test wait for all of them.
 */
import { readLines } from './support/child-app';
import { waitFor } from './support/wait-for';
import { CLAIM_TO_START_MS, FIRST_START_SLACK_MS, shortLeases } from './support/test-timings';
import { describeEachBackend } from './support/backends';
import { withProcessScenario } from './support/process-scenario';

/** Most starts in any interval of `duration` ms. */
function busiestWindow(starts: number[], duration: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[i] - starts[j] >= duration) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * Most handlers running at once across processes, from span logs ("S id pid t" / "E id pid t"). A handler of a
 * killed process counts until the kill: it ran until then.
 */
function mostRunningAtOnce(lines: string[], killedPid: number, killedAt: number): number {
  const open = new Map<string, number>();
  const edges: [number, number][] = [];
  for (const line of lines) {
    const [kind, id, pid, at] = line.split(' ');
    const span = `${id} ${pid}`;
    if (kind === 'S') open.set(span, Number(at));
    else {
      edges.push([open.get(span)!, 1], [Number(at), -1]);
      open.delete(span);
    }
  }
  for (const [span, startedAt] of open) {
    if (Number(span.split(' ')[1]) !== killedPid) throw new Error(`handler ${span} never ended in a live process`);
    edges.push([startedAt, 1], [killedAt, -1]);
  }
  // An end and a start at the same ms: the end first (the slot was free by then).
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let most = 0;
  for (const [, change] of edges) most = Math.max(most, (running += change));
  return most;
}

describeEachBackend('queue limits across OS processes', (backend) => {
  it.concurrent(
    'ten processes together start at most max jobs per window of one limiter',
    () =>
      withProcessScenario(backend, async ({ producer, admin, startWorker }) => {
        const max = 10;
        const duration = 500;
        const total = 60;
        const children = Array.from({ length: 10 }, () =>
          startWorker({ module: { pollInterval: 200 }, queues: [{ name: 'api', concurrency: 5, limiter: { max, duration } }] }),
        );
        await Promise.all(children.map((child) => child.printed('READY')));
        await producer.addBulk(
          'api',
          Array.from({ length: total }, (_, n) => ({ data: { n } })),
        );
        await waitFor(async () => (await admin.getCounts('api')).completed === total, `${total} jobs done`, 30_000);
        const jobs = await admin.getJobs('api', { status: 'completed', limit: total });
        const starts = jobs.map((job) => job.startedAt!.getTime()).sort((a, b) => a - b);
        // A fixed window: no window holds more than max, so no interval of one window holds more than two windows' worth.
        expect(busiestWindow(starts, duration - CLAIM_TO_START_MS)).toBeLessThanOrEqual(2 * max);
        // Six windows' worth of jobs: at least five window lengths from the first start to the last.
        expect(starts[total - 1] - starts[0]).toBeGreaterThanOrEqual((total / max - 1) * duration - FIRST_START_SLACK_MS);
      }),
    // Ten apps booting at once on two busy cores, beside the other test's three, take a while.
    180_000,
  );

  it.concurrent(
    'global concurrency is never exceeded when a process is killed with -9, and its expired leases free their slots',
    () =>
      withProcessScenario(backend, async ({ db, producer, admin, startWorker, startStandbyWorker }) => {
        const spanLog = `${db.path}.spans`;
        const limit = 3;
        const total = 24;
        const config = {
          spanLog,
          module: shortLeases(backend),
          queues: [{ name: 'capped', concurrency: 3, globalConcurrency: limit }],
        };
        const victim = startWorker(config);
        // The two survivors load meanwhile (most of a start) and boot once the victim is dead.
        const survivors = [startStandbyWorker(config), startStandbyWorker(config)];
        await victim.printed('READY');
        await producer.addBulk(
          'capped',
          Array.from({ length: total }, (_, n) => ({ data: { n, sleep: 150 } })),
        );
        // The victim holds every global slot when it dies.
        await waitFor(() => readLines(spanLog).filter((line) => line.startsWith('S')).length >= limit, 'the victim runs three jobs');
        const victimPid = victim.process.pid!;
        const killedAt = Date.now();
        await victim.kill();
        await Promise.all(survivors.map((child) => child.boot()));
        await Promise.all(survivors.map((child) => child.printed('READY')));
        await waitFor(async () => (await admin.getCounts('capped')).completed === total, `all ${total} jobs done`, 60_000);
        const lines = readLines(spanLog);
        expect(mostRunningAtOnce(lines, victimPid, killedAt)).toBeLessThanOrEqual(limit);
        // The survivors used the slots: more than one of their jobs ran at once.
        expect(
          mostRunningAtOnce(
            lines.filter((line) => !line.includes(` ${victimPid} `)),
            victimPid,
            killedAt,
          ),
        ).toBe(limit);
      }),
    // Three process starts side by side (seconds each, more on a loaded machine, and the other test's ten load beside
    // them; the survivors boot after the kill), then the victim's lease (short: test-timings.ts), a recovery period and
    // the recovery jitter (up to the lease again) before its jobs run again: past Jest's default 60 s under load.
    180_000,
  );
});
