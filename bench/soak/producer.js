'use strict';
// A soak producer process: `node producer.js <json args>`. Adds its slot's share of the jobs (markers
// p<slot>-<seq>, seq 0..quota-1) with a seeded mix of add(), addBulk() and keyed adds, some delayed, some with a
// priority, some that fail their first attempt on purpose, some that take a few ms, some that snooze while young,
// some in a group, and keyed adds (unique or throttled, each in a group). Its ledger
// (producer-<slot>.log, shared by the slot's successive processes) gets one line per acknowledged job, written
// only after add()/addBulk() resolved:
//   A <jobId> <marker> <queue> [r] the job was acknowledged; `r`: added with removeOnComplete: true (delete mode)
//   K <jobId> <marker>             a second add with the same key, acknowledged (normally the same job id)
//   W <rootId> <marker> <nodes>    the root of an acknowledged flow (after its A line) and how many jobs it holds
//   R <jobId> <marker>             an add made in a TypeORM transaction that was then rolled back on purpose
//   V <jobId> <marker> <pid> <ms>  a wait for the job's end began (`waitUntilFinished`), in process pid (epoch ms)
//   X <jobId> <marker> <status> <m> <pid>  that wait answered: the job's status and its result's marker (or -)
//   Y <jobId> <marker> <error> <pid>       that wait rejected (the name of its error), while the process was not stopping
//   N <jobId> <marker> <pid>       that wait was given up: the process was asked to stop before it answered
//   D <jobId> <marker> <policy> <ids> a dependent (after its A line), its onDependencyFailure and its dependencies'
//                                  ids, comma-separated (added with it by addGraph, or before it by addBulk)
// About 7 % of operations add in a transaction of a DataSource of the producer's own (a second connection to the
// SQLite file, a pool of its own on PostgreSQL): committed (an A line once the commit resolved) or, 40 % of them,
// rolled back (an R line). A rolled-back job must not exist; its marker is spent.
// A flow takes one marker per job (p<slot>-<seq>..p<slot>-<seq+nodes-1>): deep ones (a chain of parents) and wide
// ones (one parent, many children), with some leaves that fail for good (UnrecoverableError) under parents that
// 'fail' or 'continue'.
// A restarted producer reads its ledger and resumes after the last acknowledged marker: the operation a kill cut
// short is sent again, so a job it had already stored may exist twice (same marker, two ids, one acknowledged).
// In delete mode (args.deleteOnComplete) a share of soak-b's jobs are added with removeOnComplete: true and every
// flow goes to DELETE_MODE.flowQueue (soak-app.js).
const fs = require('node:fs');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { openLedger, readLedger } = require('./ledger');
const { seededRandom, mixSeed } = require('./random');
const { DELETE_MODE, JOB_RETRY, startSoakApp, onOrchestrator } = require('./soak-app');

/** How long a wait may take: longer than any job of the soak, drain included. */
const WAIT_TIMEOUT_MS = 240_000;
/** Waits outstanding at once, at most, per producer process. */
const MAX_WAITS = 50;

/** Thrown inside a transaction's callback to roll it back on purpose. */
const ROLLBACK = new Error('planned rollback');

/** A TypeORM DataSource of this process's own on the soak's database, for transactional adds. */
async function openTransactionSource(backend) {
  const { DataSource } = require('typeorm');
  const options =
    backend.kind === 'postgres'
      ? { type: 'postgres', url: backend.url, schema: backend.schema, extra: { max: 2 } }
      : { type: backend.driver === 'better-sqlite3' ? 'better-sqlite3' : 'sqlite', database: backend.database, busyTimeout: 5000 };
  return new DataSource(options).initialize();
}

async function main() {
  const args = JSON.parse(process.argv[2]);
  const file = path.join(args.dir, `producer-${args.slot}.log`);
  let next = 0;
  for (const [kind, , marker] of readLedger(file)) {
    if (kind === 'A') next = Math.max(next, Number(marker.split('-')[1]) + 1);
  }
  const write = openLedger(file);
  const restarts = readLedger(path.join(args.dir, `starts-${args.slot}.log`)).length;
  openLedger(path.join(args.dir, `starts-${args.slot}.log`))(process.pid);
  const random = seededRandom(mixSeed(args.seed, 1000 + args.slot, restarts));
  const logFile = path.join(args.dir, `log-${process.pid}.txt`);
  const booting = startSoakApp({ backend: args.backend, processing: false, logFile });
  let stopping = false;
  // Waits for some acknowledged jobs' ends (`waitUntilFinished`), answered by any consumer process: each line says
  // how it was answered. A stop lets the outstanding ones finish first (the queue has drained by then).
  const waits = new Map(); // wait -> [jobId, marker]
  const waitFor = (job, marker) => {
    write('V', job.id, marker, process.pid, Date.now());
    const wait = job.waitUntilFinished({ timeout: WAIT_TIMEOUT_MS }).then(
      (info) => write('X', job.id, marker, info.status, (info.result && info.result.m) || '-', process.pid),
      (error) => {
        if (!stopping) write('Y', job.id, marker, (error && error.name) || 'Error', process.pid);
        const text = String(error && error.stack ? error.stack : error).replace(/\n/g, ' | ');
        fs.appendFileSync(logFile, `wait-error ${Date.now()} ${job.id} ${text}\n`);
      },
    );
    waits.set(wait, [job.id, marker]);
    void wait.finally(() => waits.delete(wait));
  };
  onOrchestrator(
    () => booting.then((started) => started.app),
    async () => {
      stopping = true;
      await Promise.race([Promise.allSettled([...waits.keys()]), sleep(10_000)]);
      // Still waiting (a stop before the queue drained: the soak's duration cap): given up, said so.
      write.many([...waits.values()].map(([id, marker]) => ['N', id, marker, process.pid]));
    },
  );
  const { producer } = await booting;
  const transactions = await openTransactionSource(args.backend);
  process.send({ type: 'ready' });

  // `inQueue`: the queue of the addBulk the job goes in (its own pick is drawn all the same, for the same sequence).
  const item = (seq, inQueue) => {
    const options = { ...JOB_RETRY };
    if (random.chance(0.3)) options.priority = random.int(1, 5);
    if (random.chance(0.08)) options.delay = random.int(100, 3000);
    const data = { m: `p${args.slot}-${seq}` };
    if (random.chance(0.04)) data.f = 1;
    if (random.chance(0.15)) data.w = random.int(1, 30);
    // Snoozes (SnoozeError) while the job is younger than z ms: several snoozes per job, meeting the write locks.
    if (random.chance(0.05)) data.z = random.int(200, 1500);
    // Some jobs carry a group: the claim's fair, group-bounded branch runs under the same kills.
    if (random.chance(0.1)) options.group = `g${random.int(0, 3)}`;
    const picked = random.pick(args.queues);
    const queue = inQueue ?? picked;
    if (args.deleteOnComplete && queue === DELETE_MODE.perJobQueue && random.chance(DELETE_MODE.perJobShare)) {
      options.removeOnComplete = true;
    }
    return { queue, data, options };
  };
  // The acknowledgement line of a job: `r` when it was added with removeOnComplete (its row may be gone at the end).
  const ack = (id, marker, queue, options) => ['A', id, marker, queue, ...(options.removeOnComplete ? ['r'] : [])];
  const flowQueue = () => (args.deleteOnComplete ? DELETE_MODE.flowQueue : random.pick(args.queues));
  // A flow of `size` jobs whose markers start at `seq`: its root, and what the ledger says of it.
  const flow = (seq, size) => {
    const leaf = (i) => {
      const data = { m: `p${args.slot}-${seq + i}` };
      if (random.chance(0.1)) data.ff = 1;
      else if (random.chance(0.05)) data.f = 1;
      if (random.chance(0.2)) data.w = random.int(1, 10);
      return { queue: flowQueue(), data, options: { ...JOB_RETRY } };
    };
    const parent = (i, children) => ({
      queue: flowQueue(),
      data: { m: `p${args.slot}-${seq + i}`, k: children.length },
      options: { ...JOB_RETRY },
      onChildFailure: random.chance(0.5) ? 'fail' : 'continue',
      children,
    });
    if (random.chance(0.5)) {
      // Deep: a chain of `size` jobs, the last a leaf.
      let node = leaf(size - 1);
      for (let i = size - 2; i >= 0; i--) node = parent(i, [node]);
      return node;
    }
    // Wide: one parent over size - 1 leaves.
    return parent(
      0,
      Array.from({ length: size - 1 }, (_, i) => leaf(i + 1)),
    );
  };
  // A dependency set of `size` jobs whose markers start at `seq`: size - 1 dependencies (in delete mode in the queue whose
  // completions delete their rows, so a dependent's dependencies are gone when it runs), then their dependent, with
  // `onDependencyFailure` 'fail' or 'continue'. Some dependencies fail for good (`ff`), some fail once (`f`).
  const dependencySet = (seq, size) => {
    const depQueue = args.deleteOnComplete ? DELETE_MODE.deletingQueue : random.pick(args.queues);
    const policy = random.chance(0.5) ? 'fail' : 'continue';
    const jobs = Array.from({ length: size - 1 }, (_, i) => {
      const data = { m: `p${args.slot}-${seq + i}` };
      if (random.chance(0.1)) data.ff = 1;
      else if (random.chance(0.05)) data.f = 1;
      if (random.chance(0.3)) data.w = random.int(1, 20);
      return { queue: depQueue, data, options: { ...JOB_RETRY } };
    });
    jobs.push({
      queue: random.pick(args.queues),
      data: { m: `p${args.slot}-${seq + size - 1}`, d: 1 },
      options: { ...JOB_RETRY, onDependencyFailure: policy },
    });
    return { jobs, policy };
  };
  // In delete mode only late in the run: the waiters' heartbeat is one shared row, and while it is fresh no completion
  // deletes its row, so the sampler of soak-a (chaos.js) skips those moments; the earlier part keeps it strong.
  const waitsNow = () => !args.deleteOnComplete || Date.now() >= args.startedAt + args.produceMs * DELETE_MODE.waitsFrom;
  while (next < args.quota && !stopping) {
    // Spread the quota over produceMs from the soak's start, across restarts.
    const dueAt = args.startedAt + (args.produceMs * next) / args.quota;
    if (dueAt > Date.now()) await sleep(dueAt - Date.now());
    const roll = random();
    try {
      if (roll < 0.35) {
        const size = Math.min(random.int(10, 100), args.quota - next);
        const queue = random.pick(args.queues);
        const items = Array.from({ length: size }, (_, i) => item(next + i, queue));
        const jobs = await producer.addBulk(
          queue,
          items.map(({ data, options }) => ({ data, options })),
        );
        write.many(jobs.map((job, i) => ack(job.id, items[i].data.m, queue, items[i].options)));
        next += size;
      } else if (roll < 0.38 && args.quota - next >= 3) {
        const size = Math.min(random.int(3, 40), args.quota - next);
        const root = flow(next, size);
        const job = await producer.addFlow(root);
        write.many([
          ['A', job.id, root.data.m, root.queue],
          ['W', job.id, root.data.m, size],
        ]);
        next += size;
      } else if (roll < 0.45) {
        const { queue, data, options } = item(next);
        const rollback = random.chance(0.4);
        let id;
        try {
          await transactions.transaction(async (manager) => {
            id = (await producer.add(queue, data, { ...options, manager })).id;
            if (rollback) throw ROLLBACK;
          });
          write(...ack(id, data.m, queue, options));
        } catch (error) {
          if (error !== ROLLBACK) throw error;
          write('R', id, data.m);
        }
        next++;
      } else if (roll < 0.78) {
        const { queue, data, options } = item(next);
        const job = await producer.add(queue, data, options);
        write(...ack(job.id, data.m, queue, options));
        next++;
        if (waitsNow() && waits.size < MAX_WAITS && random.chance(0.5)) waitFor(job, data.m);
      } else if (roll < 0.88 && args.quota - next >= 3) {
        const size = Math.min(random.int(3, 8), args.quota - next);
        const set = dependencySet(next, size);
        if (random.chance(0.5)) {
          // One statement: the dependencies and their dependent, which names them by ref.
          const jobs = await producer.addGraph(
            set.jobs.map((job, i) => ({
              ref: `r${i}`,
              queue: job.queue,
              data: job.data,
              options: i < size - 1 ? job.options : { ...job.options, dependsOn: set.jobs.slice(0, -1).map((_, d) => ({ ref: `r${d}` })) },
            })),
          );
          write.many([
            ...jobs.map((job, i) => ack(job.id, set.jobs[i].data.m, set.jobs[i].queue, set.jobs[i].options)),
            [
              'D',
              jobs[size - 1].id,
              set.jobs[size - 1].data.m,
              set.policy,
              jobs
                .slice(0, -1)
                .map((job) => job.id)
                .join(','),
            ],
          ]);
        } else {
          // The dependencies first, then the dependent by their ids: some may have ended (and been deleted) by then.
          const dependencies = set.jobs.slice(0, -1);
          const added = await producer.addBulk(
            dependencies[0].queue,
            dependencies.map(({ data, options }) => ({ data, options })),
          );
          write.many(added.map((job, i) => ack(job.id, dependencies[i].data.m, dependencies[i].queue, dependencies[i].options)));
          next += size - 1;
          const last = set.jobs[size - 1];
          const ids = added.map((job) => job.id);
          const dependent = await producer.add(last.queue, last.data, { ...last.options, dependsOn: ids });
          write.many([
            ack(dependent.id, last.data.m, last.queue, last.options),
            ['D', dependent.id, last.data.m, set.policy, ids.join(',')],
          ]);
          next++;
          continue;
        }
        next += size;
      } else {
        const { queue, data, options } = item(next);
        // Half unique keys, half throttled (keyTtl), each with a group: a keyed add writes every column a plain
        // add does, and its job runs under the group's bound like any other.
        const keyed = { ...options, key: `k-${data.m}`, group: `g${random.int(0, 3)}` };
        if (random.chance(0.5)) keyed.keyTtl = random.int(500, 3000);
        const job = await producer.add(queue, data, keyed);
        write(...ack(job.id, data.m, queue, keyed));
        next++;
        const again = await producer.add(queue, data, keyed);
        write('K', again.id, data.m);
      }
    } catch (error) {
      // Not acknowledged: nothing is counted for it; the same markers are sent again.
      const text = String(error && error.stack ? error.stack : error).replace(/\n/g, ' | ');
      fs.appendFileSync(logFile, `producer-error ${Date.now()} ${text}\n`);
      await sleep(100);
    }
  }
  if (next >= args.quota) process.send({ type: 'done' });
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
