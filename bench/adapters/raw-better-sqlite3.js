'use strict';
// The ceiling: the enqueue -> claim -> complete cycle straight on better-sqlite3, no queue library.
// Same table and indexes as the library; WAL, synchronous=NORMAL; 100-row multi-VALUES inserts;
// one UPDATE ... RETURNING claims 100 jobs of a queue; one UPDATE completes the whole batch.
const Database = require('better-sqlite3');
const { freshDbFile, now, rssSampler } = require('../lib/common');
const raw = require('../lib/raw-sql');

const ROWS_PER_INSERT = 100;
const CLAIM_BATCH = 100;

function open(file) {
  const db = new Database(file);
  for (const pragma of raw.PRAGMAS) db.pragma(pragma.replace(/^PRAGMA /, ''));
  for (const statement of raw.SCHEMA_SQL) db.exec(statement);
  return db;
}

exports.throughput = async ({ tag, queues, total, chunk, addOneCount }) => {
  const db = open(freshDbFile(`throughput-${tag}.sqlite`));
  const perQueue = total / queues.length;
  const insertFull = db.prepare(raw.insertSql(ROWS_PER_INSERT));
  const insertChunk = db.transaction((queue, from, count) => {
    const time = Date.now();
    for (let done = 0; done < count;) {
      const rows = Math.min(ROWS_PER_INSERT, count - done);
      const params = [];
      for (let i = 0; i < rows; i++) params.push(...raw.rowParams(queue, JSON.stringify({ i: from + done + i }), time));
      (rows === ROWS_PER_INSERT ? insertFull : db.prepare(raw.insertSql(rows))).run(params);
      done += rows;
    }
  });
  let t = now();
  for (const queue of queues) {
    for (let done = 0; done < perQueue; done += chunk) {
      insertChunk(queue, done, Math.min(chunk, perQueue - done));
      await null;
    }
  }
  const bulkMs = now() - t;

  const claim = db.prepare(raw.CLAIM_SQL);
  const complete = db.prepare(raw.COMPLETE_BATCH_SQL);
  const handler = async () => undefined;
  let handled = 0;
  const rss = rssSampler();
  const cpu = require('../lib/cpu-split').cpuSplit();
  t = now();
  for (let idle = 0; idle < queues.length;) {
    idle = 0;
    for (const queue of queues) {
      const time = Date.now();
      const jobs = claim.all('bench', time + 30_000, time, time, queue, time, CLAIM_BATCH);
      if (jobs.length === 0) {
        idle++;
        continue;
      }
      await Promise.all(jobs.map((job) => handler(JSON.parse(job.data))));
      handled += jobs.length;
      const doneAt = Date.now();
      complete.run(doneAt, doneAt, JSON.stringify(jobs.map((job) => job.id)));
    }
  }
  const processMs = now() - t;
  const cpuPerJob = cpu.stop(total);
  const rssMiB = rss.stop();
  const completed = db.prepare(`SELECT COUNT(*) AS n FROM ${raw.T} WHERE status = 'completed'`).get().n;
  db.close();

  const addDb = open(freshDbFile(`add-one-${tag}.sqlite`));
  const insertOne = addDb.prepare(raw.insertSql(1));
  t = now();
  for (let i = 0; i < addOneCount; i++) {
    insertOne.run(raw.rowParams(queues[0], JSON.stringify({ i }), Date.now()));
    await null;
  }
  const addMs = now() - t;
  addDb.close();

  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: { jobs: total, ms: processMs, rate: (total / processMs) * 1000, rssMiB, handled, completed, failed: 0, cpuPerJob },
    addOne: { count: addOneCount, ms: addMs, rate: (addOneCount / addMs) * 1000 },
    errors: 0,
  };
};
