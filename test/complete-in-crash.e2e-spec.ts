/**
 * Exactly-once effects with transactional completion (`job.completeIn`) under kill -9: worker processes
 * (test/fixtures/complete-in-app.ts) each insert a row keyed by the job's id into an application table and complete the
 * job in the same transaction, while the test kills one of them with SIGKILL at random moments and starts another. The
 * table has no unique constraint, so a job whose effect landed twice would show as two rows.
 */
import { DataSource } from 'typeorm';
import { QueueAdmin, QueueProducer } from '../lib';
import type { CompleteInAppConfig } from './fixtures/complete-in-app';
import { ChildApp, readRunLog, startScript } from './support/child-app';
import { countingConnection } from './support/counting-data-source';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { shortLeases } from './support/test-timings';
import { waitFor, waitWhileProgressing } from './support/wait-for';
import { held } from './support/job-counts';

/**
 * Jobs of a run. The claim is about each job (one row, by the process whose completion committed), not about how many:
 * the count only has to keep work in flight for the kills to land among it, and 1,000 jobs of 20 to 59 ms on 12 slots
 * do (the run log asserts some jobs started twice). It was 2,000: half the jobs' work, for the same claim.
 */
const JOBS = 1000;
const PROCESSES = 3;
/** Kills in a run: at least 5 at random moments are the claim (asserted below). */
const KILLS = 8;
/**
 * The test's own deadline. Every wait in it fails on a 30 s stall (no job completed), which is what a lost job or a
 * stuck writer looks like; this only bounds a run that keeps progressing slowly. Most of a run's CPU is its 11 process
 * boots (about a second each), not its jobs: alone, at load 4 to 5, a backend took 9 to 22 s with 1,000 jobs, about
 * as long as with 2,000, and a full suite on a loaded 2-core machine (load 5 to 11, the processes sharing the cores
 * with the suite) took a node-sqlite3 run past the former 120 s.
 */
const TEST_TIMEOUT_MS = 240_000;

describeEachBackend('transactional completion under kill -9 (several OS processes)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let children: ChildApp[] = [];
  let dataSource: DataSource | undefined;
  // Before perTestApp's hook closes the apps: kill whatever still runs, whatever the test did.
  afterEach(async () => {
    await Promise.all(children.map((child) => child.kill()));
    children = [];
    await dataSource?.destroy();
    dataSource = undefined;
  });

  it(
    `${JOBS} jobs, each inserting a row and completing in one transaction, under repeated kill -9: one row per job, all completed`,
    async () => {
      const connection = countingConnection(current.db);
      dataSource = connection.dataSource;
      await dataSource.initialize();
      const schema = connection.options.postgres?.schema;
      if (schema) await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      const effects = schema ? `"${schema}".effects` : 'effects';
      await dataSource.query(`CREATE TABLE ${effects} (job_id bigint NOT NULL, pid integer NOT NULL)`);

      const app = await current.startApp({ module: { processing: false } });
      const producer = app.get(QueueProducer);
      const admin = app.get(QueueAdmin);
      const jobs = await producer.addBulk(
        'effects',
        Array.from({ length: JOBS }, (_, n) => ({ data: { n }, options: { maxAttempts: 100 } })),
      );
      const runLog = `${current.db.path}.runs`;
      const config: CompleteInAppConfig = {
        connection: current.db.options,
        effects,
        runLog,
        concurrency: 4,
        module: shortLeases(backend),
      };
      const start = () => {
        const child = startScript('test/fixtures/complete-in-app.ts', [JSON.stringify(config)]);
        children.push(child);
        return child;
      };
      const ready = async (child: ChildApp) => {
        await child.printed('READY');
        return child;
      };
      let live = await Promise.all(Array.from({ length: PROCESSES }, () => ready(start())));
      const completed = async () => (await admin.getCounts('effects')).completed;

      // Kill a random worker at a random moment and start another in its place, KILLS times, each once the completed
      // count has passed a mark drawn at random below 90 % of the jobs: the kills fall anywhere in the run, and the last
      // jobs drain without kills. (A kill every 0.2 to 0.7 s until 90 % made 20 to 33 kills, each a process to boot on a
      // loaded machine, where the claim needs a few at random moments.)
      const killed: number[] = [];
      const marks = Array.from({ length: KILLS }, () => Math.floor(Math.random() * JOBS * 0.9)).sort((a, b) => a - b);
      for (const mark of marks) {
        await waitWhileProgressing(completed, mark, `${mark} jobs completed before kill ${killed.length + 1}`, { stallMs: 30_000 });
        const victim = live[Math.floor(Math.random() * live.length)];
        expect(await victim.kill()).toBe('SIGKILL');
        killed.push(victim.process.pid!);
        live = live.filter((child) => child !== victim);
        live.push(start());
        // The replacement boots while the others go on; it joins `live` whether or not it is up yet (a kill before its
        // READY is a kill at a random moment too).
      }
      await Promise.all(live.map((child) => ready(child)));
      await waitWhileProgressing(completed, JOBS, `all ${JOBS} jobs completed`, { stallMs: 30_000 });
      for (const child of live) expect(await child.stop()).toBe(0);

      expect(killed.length).toBeGreaterThanOrEqual(5);
      expect(await admin.getCounts('effects')).toMatchObject({ pending: 0, running: 0, completed: JOBS, failed: 0 });
      // Exactly one effect per job, by the process whose completion committed with it.
      const rows = (await dataSource.query(`SELECT job_id, pid FROM ${effects}`)) as { job_id: string | number; pid: number }[];
      const effectsOf = new Map<string, number[]>();
      for (const row of rows) effectsOf.set(String(row.job_id), [...(effectsOf.get(String(row.job_id)) ?? []), Number(row.pid)]);
      const duplicated = [...effectsOf].filter(([, pids]) => pids.length > 1);
      expect(duplicated).toEqual([]);
      expect(rows).toHaveLength(JOBS);
      const finished = new Map<string, { pid: number } | null>();
      for (let offset = 0; offset < JOBS; offset += 1000) {
        for (const info of await admin.getJobs<unknown, { pid: number }>('effects', { limit: 1000, offset }))
          finished.set(info.id, info.result);
      }
      for (const job of jobs)
        expect({ id: job.id, result: finished.get(job.id) }).toEqual({ id: job.id, result: { pid: effectsOf.get(job.id)![0] } });
      // The kills hit work in flight: some jobs started more than once, yet none left a second row.
      const runs = readRunLog(runLog);
      const startsOf = new Map<string, number>();
      for (const run of runs) startsOf.set(run.id, (startsOf.get(run.id) ?? 0) + 1);
      expect([...startsOf.values()].some((starts) => starts > 1)).toBe(true);
      await waitFor(async () => held(await admin.getCounts('effects')) === 0, 'nothing left running');
    },
    TEST_TIMEOUT_MS,
  );
});
