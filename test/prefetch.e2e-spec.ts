/**
 * `prefetch` on a processor: the process claims that many jobs ahead of its free slots, so a slot that frees finds
 * its next job already here. What must still hold: never more handlers at once than the concurrency, never more
 * jobs claimed than the concurrency plus the prefetch, jobs of a queue start in claim order, a clean shutdown
 * hands the prefetched jobs back at once (pending, their attempt not spent), and a crash gives them back when
 * their lease expires, to run exactly once elsewhere.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TestingModule } from '@nestjs/testing';
import { Job, JobCounts, QueueAdmin, QueueProducer, RateLimitError, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { ChildApp, readRunLog, startChildApp, startStandbyChildApp } from './support/child-app';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { CountingConnection, StatementLog, countingConnection } from './support/counting-data-source';
import { shortLeases } from './support/test-timings';

interface Step {
  name: string;
}

describeEachBackend('prefetch: jobs claimed ahead of a free slot', (backend) => {
  let children: ChildApp[] = [];
  let connection: CountingConnection | undefined;
  afterEach(async () => {
    await Promise.all(children.map((child) => child.kill()));
    children = [];
  });
  // Declared after the hook above, which runs first: it stops the children before their database goes.
  const current = perTestApp(backend, MIGRATED);
  // After perTestApp's hook (declared later, runs later): a borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  /** A processor of `queue` whose job `name` runs until `gates[name]` resolves; it records starts and overlap. */
  function gatedProcessor(queue: string, options: { concurrency: number; prefetch: number | 'auto' }) {
    const gates = new Map<string, ReturnType<typeof deferred<void>>>();
    const gate = (name: string) => gates.get(name) ?? gates.set(name, deferred<void>()).get(name)!;
    const state = { started: [] as string[], active: 0, maxActive: 0 };
    const Processor = defineProcessor<Step>(
      queue,
      async (job: Job<Step>) => {
        state.started.push(job.data.name);
        state.maxActive = Math.max(state.maxActive, ++state.active);
        try {
          await gate(job.data.name).promise;
          return job.data.name;
        } finally {
          state.active--;
        }
      },
      options,
    );
    return { Processor, state, open: (name: string) => gate(name).resolve() };
  }

  it('claims up to concurrency + prefetch, keeps the rest in the database, and starts the prefetched jobs in order, one at a time', async () => {
    const pf = gatedProcessor('pf', { concurrency: 1, prefetch: 2 });
    const Other = defineProcessor('other', async () => 'ok');
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [pf.Processor, Other] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const ids: string[] = [];
    for (const name of names) ids.push((await producer.add('pf', { name })).id);

    await waitFor(
      async () => pf.state.started.includes('a') && counted(await admin.getCounts('pf'), 1, 2),
      'a runs, b and c claimed ahead',
    );
    // Claim rounds go on (the other queue's jobs are claimed and run); none of them takes a fourth job of 'pf'.
    const others = await producer.addBulk('other', [{ data: {} }, { data: {} }, { data: {} }]);
    await waitFor(async () => (await admin.getCounts('other')).completed === others.length, 'the other queue ran meanwhile');
    expect(await admin.getCounts('pf')).toMatchObject({ running: 1, claimed: 2, pending: 3 });
    const running = await admin.getJobs('pf', { status: 'running' });
    expect(running.map((job) => job.id).sort()).toEqual(ids.slice(0, 3).sort());
    expect(pf.state.started).toEqual(['a']);

    for (const name of names) {
      await waitFor(() => pf.state.started.includes(name), `${name} started`);
      pf.open(name);
    }
    await waitFor(async () => (await admin.getCounts('pf')).completed === names.length, 'all completed');
    expect(pf.state.started).toEqual(names);
    expect(pf.state.maxActive).toBe(1);
    for (const id of ids) expect(await admin.getJob(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('under load, short jobs through a prefetch: never more handlers than the concurrency, every job run once', async () => {
    const runs = new Map<number, number>();
    const state = { active: 0, maxActive: 0 };
    const Busy = defineProcessor<{ n: number }>(
      'busy',
      async (job) => {
        runs.set(job.data.n, (runs.get(job.data.n) ?? 0) + 1);
        state.maxActive = Math.max(state.maxActive, ++state.active);
        try {
          await new Promise((resolve) => setTimeout(resolve, job.data.n % 3));
        } finally {
          state.active--;
        }
      },
      { concurrency: 3, prefetch: 5 },
    );
    const app = await current.startApp({ providers: [Busy] });
    const admin = app.get(QueueAdmin);
    const count = 300;
    await app.get(QueueProducer).addBulk(
      'busy',
      Array.from({ length: count }, (_, n) => ({ data: { n } })),
    );
    await waitFor(async () => (await admin.getCounts('busy')).completed === count, 'all completed', 30_000);
    expect(state.maxActive).toBeLessThanOrEqual(3);
    expect(runs.size).toBe(count);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
  });

  it('a clean shutdown hands the prefetched jobs back at once, their attempt unspent, and the next app runs each once', async () => {
    const pf = gatedProcessor('pf', { concurrency: 1, prefetch: 3 });
    // Polls and heartbeats far apart: nothing but this test's events moves the jobs.
    let app: TestingModule = await current.startApp({
      module: { pollInterval: 200, leaseDuration: 120_000 },
      providers: [pf.Processor],
    });
    const producer = app.get(QueueProducer);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) ids.push((await producer.add('pf', { name })).id);
    const observer = await current.startApp({ module: { processing: false } });
    let admin = observer.get(QueueAdmin);
    await waitFor(async () => pf.state.started.includes('a') && counted(await admin.getCounts('pf'), 1, 3), 'a runs, three claimed ahead');

    // At once: the prefetched jobs are pending again while `a` still runs.
    const closing = current.close(app);
    await waitFor(async () => (await admin.getCounts('pf')).pending === 3, 'the prefetched jobs handed back while a runs');
    expect(pf.state.started).toEqual(['a']);
    pf.open('a');
    await closing;
    expect(pf.state.started).toEqual(['a']);
    await current.close(observer);

    const next = gatedProcessor('pf', { concurrency: 4, prefetch: 0 });
    ['b', 'c', 'd'].forEach((name) => next.open(name));
    app = await current.startApp({ module: { processing: false } });
    admin = app.get(QueueAdmin);
    expect(await admin.getJob(ids[0])).toMatchObject({ status: 'completed', attempts: 1 });
    for (const id of ids.slice(1)) expect(await admin.getJob(id)).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null });
    await current.close(app);

    app = await current.startApp({ providers: [next.Processor] });
    admin = app.get(QueueAdmin);
    await waitFor(async () => (await admin.getCounts('pf')).completed === 4, 'the next app ran the handed-back jobs');
    expect(next.state.started.sort()).toEqual(['b', 'c', 'd']);
    for (const id of ids.slice(1)) expect(await admin.getJob(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it("'auto' keeps prefetch 0's fairness between two processes: a process whose handlers are long beside a claim claims nothing ahead, and the free one runs the job meanwhile", async () => {
    // Process A (its own worker id, poller and connection): one slot, the default prefetch, a statement log to see
    // its claim rounds. Its first handler takes 1 s, so its mean handler time is 1 s: 'auto' looks ahead
    // concurrency x claim time / 1 s jobs, 0 while a claim takes less than that second (its bound).
    const a = { started: [] as string[], active: 0 };
    const hold = deferred();
    const A = defineProcessor<Step>(
      'fair',
      async (job) => {
        a.started.push(job.data.name);
        a.active++;
        try {
          // The warm-up job's own run time, what A learns its handlers take; `hold` runs until the test ends it.
          if (job.data.name === 'warm') await sleep(1000);
          if (job.data.name === 'hold') await hold.promise;
          return job.data.name;
        } finally {
          a.active--;
        }
      },
      { concurrency: 1, prefetch: 'auto' },
    );
    connection = countingConnection(current.db);
    const log = connection.log;
    const appA = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 50, leaseDuration: 120_000 })],
      // A second, idle queue: its claim goes out every poll, so A's rounds show in the log even when it asks nothing of 'fair'.
      providers: [A, defineProcessor('idle', async () => 'ok')],
    });
    const producer = appA.get(QueueProducer);
    const admin = appA.get(QueueAdmin);
    const warm = await producer.add('fair', { name: 'warm' });
    await waitFor(async () => (await admin.getJob(warm.id))?.status === 'completed', 'the warm-up job completed');

    // A's only slot is busy with a job that runs until the test ends it.
    await producer.add('fair', { name: 'hold' });
    await waitFor(() => a.started.includes('hold'), 'A runs the job that holds its slot');
    // Added in A (its own insert wakes its poller first): two of its claim rounds begin after the add, so the
    // first of them has ended, with the job there to take.
    const statementsBefore = log.statements.length;
    const next = await producer.add('fair', { name: 'next' });
    const claimsAfterAdd = () => log.statements.slice(statementsBefore).filter(StatementLog.isClaim);
    await waitFor(() => claimsAfterAdd().length >= 2, 'two claim rounds of A after the add');
    // prefetch 0's fairness: none of A's claims asks for the busy queue, and the job stays in the database for any process.
    for (const claim of claimsAfterAdd()) expect(claim.parameters.flat()).not.toContain('fair');
    expect(await admin.getJob(next.id)).toMatchObject({ status: 'pending', lockedBy: null });

    // Process B, with a free slot, runs it while A's slot is still busy.
    const b = gatedProcessor('fair', { concurrency: 1, prefetch: 'auto' });
    b.open('next');
    await current.startApp({ module: { pollInterval: 50 }, providers: [b.Processor] });
    await waitFor(async () => (await admin.getJob(next.id))?.status === 'completed', 'B ran the job');
    expect(b.state.started).toEqual(['next']);
    expect(a.started).toEqual(['warm', 'hold']);
    expect(a.active).toBe(1);
    hold.resolve();
  });

  it('a RateLimitError hands the prefetched jobs back with its job, unspent: none of them starts during the pause', async () => {
    const started: string[] = [];
    const release = deferred<void>();
    const Limited = defineProcessor<Step>(
      'pf',
      async (job) => {
        started.push(job.data.name);
        await release.promise;
        throw new RateLimitError(60_000);
      },
      { concurrency: 1, prefetch: 3 },
    );
    const app = await current.startApp({ module: { pollInterval: 50, leaseDuration: 120_000 }, providers: [Limited] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) ids.push((await producer.add('pf', { name })).id);
    await waitFor(async () => started.length === 1 && counted(await admin.getCounts('pf'), 1, 3), 'a runs, three claimed ahead');

    release.resolve();
    // Without the hand-back, b would take a's slot now and hit the limit in its turn (and c, and d).
    await waitFor(async () => (await admin.getCounts('pf')).pending === 4, 'a and the prefetched jobs pending again');
    expect(started).toEqual(['a']);
    for (const id of ids) expect(await admin.getJob(id)).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null });
  });

  it("an operator's pause hands the jobs claimed ahead back at once, unspent: none of them starts until the resume", async () => {
    const pf = gatedProcessor('pf', { concurrency: 1, prefetch: 2 });
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [pf.Processor] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await producer.add('pf', { name })).id);
    await waitFor(
      async () => pf.state.started.includes('a') && counted(await admin.getCounts('pf'), 1, 2),
      'a runs, b and c claimed ahead',
    );

    await admin.pause('pf');
    // Without the hand-back, b would take a's slot once a ends (and c after it), the queue paused.
    expect(await admin.getCounts('pf')).toMatchObject({ running: 1, claimed: 0, pending: 2 });
    for (const id of ids.slice(1)) expect(await admin.getJob(id)).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null });
    pf.open('a');
    await waitFor(async () => (await admin.getCounts('pf')).completed === 1, 'a completed');
    expect(pf.state.started).toEqual(['a']);

    await admin.resume('pf');
    for (const name of ['b', 'c']) {
      await waitFor(() => pf.state.started.includes(name), `${name} started after the resume`);
      pf.open(name);
    }
    await waitFor(async () => (await admin.getCounts('pf')).completed === 3, 'all completed');
    for (const id of ids) expect(await admin.getJob(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('kill -9 of a process holding prefetched jobs: another process runs them once its lease expired, each exactly once', async () => {
    const runLog = `${current.db.path}.runs`;
    const observer = await current.startApp({ module: { processing: false } });
    const producer = observer.get(QueueProducer);
    const admin = observer.get(QueueAdmin);
    // The first job hangs, so the process holds it and three more it claimed ahead when it dies.
    const ids: string[] = [];
    ids.push((await producer.add('pf', { n: 0, hang: true })).id);
    for (let n = 1; n <= 3; n++) ids.push((await producer.add('pf', { n })).id);

    const module = shortLeases(backend);
    const first = startChildApp({ connection: current.db.options, runLog, module, queues: [{ name: 'pf', concurrency: 1, prefetch: 3 }] });
    children.push(first);
    // The next process loads meanwhile and boots once the first is dead (a start is most of this test's time).
    const second = startStandbyChildApp({ connection: current.db.options, runLog, module, queues: [{ name: 'pf', concurrency: 4 }] });
    children.push(second);
    // The wait on what the child does starts once it is up: its start is bounded by nothing of ours (over 30 s at load 70).
    await first.printed('READY');
    await waitFor(
      async () => readRunLog(runLog).length === 1 && counted(await admin.getCounts('pf'), 1, 3),
      'one job runs, three held ahead',
    );
    expect(await first.kill()).toBe('SIGKILL');
    const killedAt = Date.now();
    // Nothing renews them now: the leases the dead process left, which no other process may take the jobs before.
    const leaseAtKill = new Map<string, number>();
    for (const id of ids) leaseAtKill.set(id, (await admin.getJob(id))!.leaseUntil!.getTime());

    await second.boot();
    await waitFor(
      async () => (await Promise.all(ids.slice(1).map((id) => admin.getJob(id)))).every((job) => job?.status === 'completed'),
      'the prefetched jobs ran in the second process',
      60_000,
    );
    // Not before the lease of the killed process expired: nobody took its jobs from under it.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(module.leaseDuration - 1000);
    for (const id of ids.slice(1)) expect((await admin.getJob(id))!.startedAt!.getTime()).toBeGreaterThanOrEqual(leaseAtKill.get(id)!);
    const runs = readRunLog(runLog);
    for (const id of ids.slice(1)) {
      const ofJob = runs.filter((run) => run.id === id);
      expect(ofJob).toHaveLength(1);
      expect(ofJob[0].pid).toBe(second.process.pid);
    }
    // The job that hung in the first process is taken back too: recovery spreads the jobs it takes back over a jitter window.
    await waitFor(() => readRunLog(runLog).filter((run) => run.id === ids[0]).length === 2, 'the hanging job restarted elsewhere', 30_000);
    expect(
      readRunLog(runLog)
        .filter((run) => run.id === ids[0])
        .map((run) => run.pid),
    ).toEqual([first.process.pid, second.process.pid]);
    // Two child starts side by side: over 30 s each at load 70 on two cores.
  }, 180_000);
});

/** Whether `counts` say `running` jobs a handler has and `claimed` jobs claimed ahead of a free slot. */
function counted(counts: JobCounts, running: number, claimed: number): boolean {
  return counts.running === running && counts.claimed === claimed;
}
