'use strict';
// A soak consumer process: `node consumer.js <json args>`. Runs every soak queue with some concurrency; its
// handler appends to this process's ledger (consumer-<pid>.log):
//   S <jobId> <attempt> <marker> <ms>   the handler started (epoch ms)
//   F <jobId> <attempt>            the handler is about to throw on purpose (payload `failFirst`, attempt 1)
//   E <jobId> <attempt> <ms>       the handler's side effect is done and it is about to return
//   C <jobId> <attempt>            the queue reported the completion stored (the `completed` event)
//   P <jobId> <attempt> <n> <ms>   a flow parent's handler read its children's results: n of them (epoch ms)
//   Q <jobId> <attempt> <n> <ms>   a dependent's handler read its dependencies' results: n of them (epoch ms)
//   U <jobId> <attempt> <ms>       the handler is about to fail the job for good on purpose (payload `ff`)
//   Z <jobId> <attempt>            the handler is about to snooze the job on purpose (payload `z`: while the job is
//                                  younger than z ms); the next start of the job has the same attempt number
// Every queue dead-letters into DEAD_LETTERS, whose own processor dead-letters back into the first queue: a cycle,
// which must end at the first hop (a dead letter that fails is never dead-lettered again). In delete mode the
// processors carry the retention of DELETE_MODE (soak-app.js).
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { openLedger } = require('./ledger');
const { DEAD_LETTERS, DELETE_MODE, startSoakApp, onOrchestrator } = require('./soak-app');
const { lib } = require('../lib/library-app');

async function main() {
  const args = JSON.parse(process.argv[2]);
  const write = openLedger(path.join(args.dir, `consumer-${process.pid}.log`));
  const handler = async (job) => {
    write('S', job.id, job.attempt, job.data.m, Date.now());
    if (job.data.k) {
      const results = await job.getChildrenResults();
      write('P', job.id, job.attempt, Object.keys(results).length, Date.now());
    }
    if (job.data.d) {
      const results = await job.getDependencyResults();
      write('Q', job.id, job.attempt, Object.keys(results).length, Date.now());
    }
    if (job.data.z && Date.now() - job.createdAt.getTime() < job.data.z) {
      write('Z', job.id, job.attempt);
      throw new lib.SnoozeError(100 + Math.floor(Math.random() * 200));
    }
    if (job.data.w) await sleep(job.data.w);
    if (job.data.ff) {
      write('U', job.id, job.attempt, Date.now());
      throw new lib.UnrecoverableError(`planned permanent failure of ${job.data.m}`);
    }
    if (job.data.f && job.attempt === 1) {
      write('F', job.id, job.attempt);
      throw new Error(`planned failure of ${job.data.m}`);
    }
    write('E', job.id, job.attempt, Date.now());
    return { m: job.data.m };
  };
  const booting = startSoakApp({
    backend: args.backend,
    processing: true,
    queues: [...args.queues, DEAD_LETTERS],
    concurrency: args.concurrency,
    processorOptions: (queue) => ({
      groupConcurrency: 2,
      deadLetter: queue === DEAD_LETTERS ? args.queues[0] : DEAD_LETTERS,
      ...(args.deleteOnComplete ? DELETE_MODE.queueRetention[queue] : undefined),
    }),
    handler,
    onCompleted: (event) => write('C', event.jobId, event.attempt),
    logFile: path.join(args.dir, `log-${process.pid}.txt`),
  });
  onOrchestrator(() => booting.then((started) => started.app));
  await booting;
  process.send({ type: 'ready' });
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
