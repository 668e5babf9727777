/**
 * Job dependencies under kill -9: worker processes (test/fixtures/queue-app.ts) run a graph of jobs while the test
 * adds dependents beside them and kills a worker with SIGKILL at random moments, starting another in its place. At the
 * end every dependent has been resolved by its policy: none started before the last of its dependencies ended, none is
 * left waiting, and a 'fail' one whose dependency did not complete never ran.
 */
import { DependencyFailedError, JobInfo, QueueAdmin, QueueProducer } from '../lib';
import { ChildApp, readLines, startChildApp } from './support/child-app';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { shortLeases } from './support/test-timings';
import { waitWhileProgressing } from './support/wait-for';

const LEAVES = 240;
const DEPENDENTS = 160;
const PROCESSES = 3;
/** Kills in a run: at least 5 at random moments are the claim (asserted below). */
const KILLS = 8;

/** A small deterministic generator: the graph is the same on every run, the kills are not. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describeEachBackend('job dependencies under kill -9 (several OS processes)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let children: ChildApp[] = [];
  afterEach(async () => {
    await Promise.all(children.map((child) => child.kill()));
    children = [];
  });

  // Starts 3 + one per kill child processes, each booting in a second or two: a long timeout.
  it(`${LEAVES} jobs and ${DEPENDENTS} dependents in two levels, added while workers are killed: each resolved by its policy, none early`, async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const random = generator(17);
    // Leaves: jobs of 40 to 160 ms (long enough for kills to land among them); one in six fails for good at its first attempt.
    const leaves = await producer.addBulk(
      'leaf',
      Array.from({ length: LEAVES }, (_, n) => ({
        data: { n, sleep: 40 + Math.floor(random() * 120), ...(n % 6 === 0 ? { failTimes: 1000 } : {}) },
        options: { maxAttempts: n % 6 === 0 ? 1 : 100 },
      })),
    );
    const spanLog = `${current.db.path}.spans`;
    const config = {
      connection: current.db.options,
      spanLog,
      module: shortLeases(backend),
      queues: [
        { name: 'leaf', concurrency: 2 },
        { name: 'dependent', concurrency: 2 },
      ],
    };
    const start = () => {
      const child = startChildApp(config);
      children.push(child);
      return child;
    };
    let live = await Promise.all(
      Array.from({ length: PROCESSES }, async () => {
        const child = start();
        await child.printed('READY');
        return child;
      }),
    );

    // Dependents are added in batches while the workers run: the first level on leaves, the second on both levels.
    const dependents: { id: string; dependsOn: string[]; policy: 'fail' | 'continue' }[] = [];
    const pick = (from: string[], count: number) => [
      ...new Set(Array.from({ length: count }, () => from[Math.floor(random() * from.length)])),
    ];
    const adding = (async () => {
      for (let batch = 0; batch < DEPENDENTS / 10; batch++) {
        const pool =
          batch < DEPENDENTS / 20 ? leaves.map((job) => job.id) : [...leaves.map((job) => job.id), ...dependents.map((d) => d.id)];
        const items = Array.from({ length: 10 }, () => ({
          dependsOn: pick(pool, 1 + Math.floor(random() * 4)),
          policy: random() < 0.5 ? ('fail' as const) : ('continue' as const),
        }));
        const added = await producer.addBulk(
          'dependent',
          items.map((item) => ({
            data: { sleep: 20 + Math.floor(random() * 40) },
            options: { dependsOn: item.dependsOn, onDependencyFailure: item.policy, maxAttempts: 100 },
          })),
        );
        added.forEach((job, index) => dependents.push({ id: job.id, ...items[index] }));
        await new Promise((resolve) => setTimeout(resolve, 50 + random() * 150));
      }
    })();

    const ended = async () => {
      const counts = await admin.getCounts();
      return counts.completed + counts.failed + counts.cancelled;
    };
    // KILLS kills, each once the ended count has passed a mark drawn at random below 90 % of the jobs: they fall
    // anywhere in the run, and the last jobs end without kills; the first mark is below 10 %, so that a kill lands
    // while the dependents are still being added. (A kill every 0.15 to 0.45 s made about 60, each a process to boot
    // and each holding its jobs for a lease, for a claim that needs a few at random moments.)
    const killed: number[] = [];
    const total = LEAVES + DEPENDENTS;
    const marks = [
      Math.floor(Math.random() * total * 0.1),
      ...Array.from({ length: KILLS - 1 }, () => Math.floor(Math.random() * total * 0.9)),
    ].sort((a, b) => a - b);
    for (const mark of marks) {
      await waitWhileProgressing(ended, mark, `${mark} jobs ended before kill ${killed.length + 1}`, { stallMs: 30_000 });
      const victim = live[Math.floor(Math.random() * live.length)];
      expect(await victim.kill()).toBe('SIGKILL');
      killed.push(victim.process.pid!);
      live = live.filter((child) => child !== victim);
      live.push(start());
    }
    await adding;
    await Promise.all(live.map((child) => child.printed('READY')));
    await waitWhileProgressing(ended, LEAVES + DEPENDENTS, 'every job ended', { stallMs: 30_000 });
    for (const child of live) expect(await child.stop()).toBe(0);
    expect(killed.length).toBeGreaterThanOrEqual(5);

    const info = new Map<string, JobInfo>();
    for (const queue of ['leaf', 'dependent']) {
      for (let offset = 0; ; offset += 1000) {
        const page = await admin.getJobs(queue, { limit: 1000, offset });
        for (const job of page) info.set(job.id, job);
        if (page.length < 1000) break;
      }
    }
    const firstStart = new Map<string, number>();
    for (const line of readLines(spanLog)) {
      const [kind, id, , at] = line.split(' ');
      if (kind === 'S' && !firstStart.has(id)) firstStart.set(id, Number(at));
    }
    const wrong: string[] = [];
    for (const dependent of dependents) {
      const job = info.get(dependent.id)!;
      const deps = dependent.dependsOn.map((id) => info.get(id)!);
      const lastEnd = Math.max(...deps.map((dep) => dep.finishedAt!.getTime()));
      const doomed = dependent.policy === 'fail' && deps.some((dep) => dep.status !== 'completed');
      const started = firstStart.get(dependent.id);
      if (doomed) {
        if (job.status !== 'failed' || job.error?.name !== DependencyFailedError.name)
          wrong.push(`${job.id} should have failed: ${job.status}`);
        if (started !== undefined) wrong.push(`${job.id} ran though a dependency did not complete`);
      } else {
        if (job.status !== 'completed') wrong.push(`${job.id} should have completed: ${job.status}`);
        if (started === undefined || started < lastEnd)
          wrong.push(`${job.id} started at ${started}, before its last dependency ended at ${lastEnd}`);
      }
    }
    expect(wrong).toEqual([]);
    // Both policies met both outcomes, so the run proved each branch.
    const outcomes = new Set(
      dependents.map(
        (d) => `${d.policy}:${d.dependsOn.every((id) => info.get(id)!.status === 'completed') ? 'all-completed' : 'some-not'}`,
      ),
    );
    expect([...outcomes].sort()).toEqual(['continue:all-completed', 'continue:some-not', 'fail:all-completed', 'fail:some-not']);
  }, 240_000);
});
