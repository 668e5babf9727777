/**
 * `groupConcurrency` and `groupLimiter` across OS processes: two child apps on one database together never run more
 * than the bound of one group's jobs at once, nor start more than a group limiter's max per window, while several
 * groups run side by side.
 */
import { QueueAdmin, QueueProducer } from '../lib';
import { ChildApp, readLines, startChildApp } from './support/child-app';
import { describeEachBackend, perTestApp } from './support/backends';
import { waitFor } from './support/wait-for';

/** Most handlers running at once per group, from span logs ("S id pid t" / "E id pid t") and each job's group. */
function mostRunningPerGroup(lines: string[], groupOf: Map<string, string>): Map<string, number> {
  const edges = new Map<string, [number, number][]>();
  for (const line of lines) {
    const [kind, id, , at] = line.split(' ');
    const group = groupOf.get(id)!;
    if (!edges.has(group)) edges.set(group, []);
    edges.get(group)!.push([Number(at), kind === 'S' ? 1 : -1]);
  }
  const most = new Map<string, number>();
  for (const [group, list] of edges) {
    // An end and a start at the same ms: the end first (the slot was free by then).
    list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let running = 0;
    let peak = 0;
    for (const [, change] of list) peak = Math.max(peak, (running += change));
    most.set(group, peak);
  }
  return most;
}

describeEachBackend('job groups across OS processes', (backend) => {
  const current = perTestApp(backend);
  const children: ChildApp[] = [];

  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => child.kill()));
  });

  it('two processes together run at most groupConcurrency jobs of one group at once', async () => {
    const spanLog = `${current.db.path}.spans`;
    const bound = 2;
    for (let i = 0; i < 2; i++) {
      children.push(
        startChildApp({
          connection: current.db.options,
          spanLog,
          module: { pollInterval: 100 },
          queues: [{ name: 'tenants', concurrency: 4, groupConcurrency: bound }],
        }),
      );
    }
    await Promise.all(children.map((child) => child.printed('READY')));
    const app = await current.startApp({ module: { processing: false } });
    const admin = app.get(QueueAdmin);
    const groups = ['t1', 't2', 't3'];
    await app.get(QueueProducer).addBulk(
      'tenants',
      Array.from({ length: 30 }, (_, n) => ({ data: { n, sleep: 60 }, options: { group: groups[n % 3] } })),
    );
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 30, 'all 30 jobs done', 60_000);
    const jobs = await admin.getJobs('tenants', { limit: 100 });
    const groupOf = new Map(jobs.map((job) => [job.id, job.group!]));
    const lines = readLines(spanLog);
    const most = mostRunningPerGroup(lines, groupOf);
    for (const group of groups) expect(most.get(group)).toBeLessThanOrEqual(bound);
    // The bound was reached, and by both processes: the cap is not one process's concurrency.
    expect(Math.max(...most.values())).toBe(bound);
    expect(new Set(lines.map((line) => line.split(' ')[2])).size).toBe(2);
  }, 120_000);

  // Three child starts (a few seconds each on a loaded machine), then two windows of 1.5 s: the timeout counts the starts.
  it('three processes together start at most groupLimiter.max jobs of one group per window, each group in its own, side by side', async () => {
    const spanLog = `${current.db.path}.spans`;
    const max = 3;
    const duration = 1500;
    for (let i = 0; i < 3; i++) {
      children.push(
        startChildApp({
          connection: current.db.options,
          spanLog,
          module: { pollInterval: 50 },
          // One slot each, jobs of 200 ms: a busy process cannot claim (a limited queue claims nothing ahead), so the
          // others take the next jobs and every process claims, however the scheduler favours one of them.
          queues: [{ name: 'tenants', concurrency: 1, groupLimiter: { max, duration } }],
        }),
      );
    }
    await Promise.all(children.map((child) => child.printed('READY')));
    const app = await current.startApp({ module: { processing: false } });
    const admin = app.get(QueueAdmin);
    const groups = ['t1', 't2', 't3'];
    // All processes read this machine's clock. A group's first window opens at a claim after this, so a job claimed in
    // its second window starts at least a window after it, however late a loaded machine starts a claimed job.
    const addedAt = Date.now();
    await app.get(QueueProducer).addBulk(
      'tenants',
      Array.from({ length: 18 }, (_, n) => ({ data: { n, sleep: 200 }, options: { group: groups[n % 3] } })),
    );
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 18, 'all 18 jobs done', 60_000);
    const firstStarts: number[] = [];
    for (const group of groups) {
      const jobs = await admin.getJobs('tenants', { group, limit: 100 });
      const starts = jobs.map((job) => job.startedAt!.getTime()).sort((a, b) => a - b);
      firstStarts.push(starts[0]);
      // At most max start within a window of the add, whichever process claimed them, and the first window took its
      // max (three rounds of 200 ms jobs fit it many times over); the fourth job is the second window's first.
      expect(starts.filter((at) => at < addedAt + duration)).toHaveLength(max);
      expect(starts[max]).toBeGreaterThanOrEqual(addedAt + duration);
    }
    // A group at its limit holds no other back: every group's first window opened within the first group's.
    expect(Math.max(...firstStarts) - Math.min(...firstStarts)).toBeLessThan(duration);
    // Every process claimed: the bound is not one process's.
    expect(new Set(readLines(spanLog).map((line) => line.split(' ')[2])).size).toBe(3);
  }, 120_000);
});
