'use strict';
// plainjob 0.0.14 on better-sqlite3 12. plainjob is ESM-only, hence the dynamic import().
// Its worker runs one job at a time (no concurrency option): one worker per queue (job type).
const Database = require('better-sqlite3');
const { freshDbFile, now, rssSampler, waitFor } = require('../lib/common');

const quiet = { error: (...args) => console.error(...args), warn() {}, info() {}, debug() {} };

exports.throughput = async ({ tag, queues, total, chunk, addOneCount }) => {
  const { better, defineQueue, defineWorker, JobStatus } = await import('plainjob');
  const file = freshDbFile(`throughput-${tag}.sqlite`);
  const database = new Database(file);
  const queue = defineQueue({ connection: better(database), logger: quiet });
  const perQueue = total / queues.length;

  let t = now();
  for (const type of queues) {
    for (let done = 0; done < perQueue; done += chunk) {
      queue.addMany(
        type,
        Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ i: done + i })),
      );
      await null; // an async producer yields between chunks, like the others
    }
  }
  const bulkMs = now() - t;

  let completed = 0;
  let failed = 0;
  const workers = queues.map((type) =>
    defineWorker(type, async () => undefined, {
      queue,
      logger: quiet,
      onCompleted: () => completed++,
      onFailed: () => failed++,
    }),
  );
  const rss = rssSampler();
  const cpu = require('../lib/cpu-split').cpuSplit();
  t = now();
  const running = workers.map((worker) => worker.start());
  await waitFor(() => completed + failed >= total, { what: `${total} done`, timeoutMs: 300_000 });
  const processMs = now() - t;
  const cpuPerJob = cpu.stop(total);
  const rssMiB = rss.stop();
  const done = queue.countJobs({ status: JobStatus.Done });
  const failedCount = queue.countJobs({ status: JobStatus.Failed });
  await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(running);
  queue.close();
  database.close();

  const addDatabase = new Database(freshDbFile(`add-one-${tag}.sqlite`));
  const addQueue = defineQueue({ connection: better(addDatabase), logger: quiet });
  t = now();
  for (let i = 0; i < addOneCount; i++) {
    addQueue.add(queues[0], { i });
    await null;
  }
  const addMs = now() - t;
  addQueue.close();
  addDatabase.close();

  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: {
      jobs: total,
      ms: processMs,
      rate: (total / processMs) * 1000,
      rssMiB,
      handled: completed,
      completed: done,
      failed: failedCount,
      cpuPerJob,
    },
    addOne: { count: addOneCount, ms: addMs, rate: (addOneCount / addMs) * 1000 },
    errors: failed,
  };
};
