'use strict';
// The ceiling: the enqueue -> claim -> complete cycle straight on node-sqlite3 (no TypeORM, so no verbose
// mode), no queue library, with statements prepared once and reused (as raw-better-sqlite3.js does; a one-shot
// db.all() prepares the statement again on every call). Same table, indexes, pragmas and batch sizes.
const sqlite3 = require('sqlite3');
const { freshDbFile, now, rssSampler } = require('../lib/common');
const raw = require('../lib/raw-sql');

const ROWS_PER_INSERT = 100;
const CLAIM_BATCH = 100;

/** Promise wrappers over one node-sqlite3 connection. */
function wrap(db) {
  const prepared = [];
  return {
    run: (sql, params = []) =>
      new Promise((resolve, reject) =>
        db.run(sql, params, function done(error) {
          if (error) reject(error);
          else resolve(this.changes);
        }),
      ),
    all: (sql, params = []) =>
      new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows)))),
    /** A statement prepared once; `.all(params)` / `.run(params)` reuse it. */
    prepare: (sql) => {
      const statement = db.prepare(sql);
      prepared.push(statement);
      return {
        all: (params) => new Promise((resolve, reject) => statement.all(params, (error, rows) => (error ? reject(error) : resolve(rows)))),
        run: (params) =>
          new Promise((resolve, reject) =>
            statement.run(params, function done(error) {
              if (error) reject(error);
              else resolve(this.changes);
            }),
          ),
      };
    },
    close: async () => {
      for (const statement of prepared.splice(0)) await new Promise((resolve) => statement.finalize(resolve));
      await new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

async function open(file) {
  const db = wrap(
    await new Promise((resolve, reject) => {
      const handle = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(handle)));
    }),
  );
  for (const pragma of raw.PRAGMAS) await db.all(pragma);
  for (const statement of raw.SCHEMA_SQL) await db.run(statement);
  return db;
}

exports.throughput = async ({ tag, queues, total, chunk, addOneCount }) => {
  const db = await open(freshDbFile(`throughput-${tag}.sqlite`));
  const perQueue = total / queues.length;
  const insertFull = db.prepare(raw.insertSql(ROWS_PER_INSERT));
  let t = now();
  for (const queue of queues) {
    for (let from = 0; from < perQueue; from += chunk) {
      const count = Math.min(chunk, perQueue - from);
      const time = Date.now();
      await db.run('BEGIN');
      for (let done = 0; done < count;) {
        const rows = Math.min(ROWS_PER_INSERT, count - done);
        const params = [];
        for (let i = 0; i < rows; i++) params.push(...raw.rowParams(queue, JSON.stringify({ i: from + done + i }), time));
        await (rows === ROWS_PER_INSERT ? insertFull.run(params) : db.run(raw.insertSql(rows), params));
        done += rows;
      }
      await db.run('COMMIT');
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
      const jobs = await claim.all(['bench', time + 30_000, time, time, queue, time, CLAIM_BATCH]);
      if (jobs.length === 0) {
        idle++;
        continue;
      }
      await Promise.all(jobs.map((job) => handler(JSON.parse(job.data))));
      handled += jobs.length;
      const doneAt = Date.now();
      await complete.run([doneAt, doneAt, JSON.stringify(jobs.map((job) => job.id))]);
    }
  }
  const processMs = now() - t;
  const cpuPerJob = cpu.stop(total);
  const rssMiB = rss.stop();
  const [{ n: completed }] = await db.all(`SELECT COUNT(*) AS n FROM ${raw.T} WHERE status = 'completed'`);
  await db.close();

  const addDb = await open(freshDbFile(`add-one-${tag}.sqlite`));
  const insertOne = addDb.prepare(raw.insertSql(1));
  t = now();
  for (let i = 0; i < addOneCount; i++) await insertOne.run(raw.rowParams(queues[0], JSON.stringify({ i }), Date.now()));
  const addMs = now() - t;
  await addDb.close();

  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: { jobs: total, ms: processMs, rate: (total / processMs) * 1000, rssMiB, handled, completed, failed: 0, cpuPerJob },
    addOne: { count: addOneCount, ms: addMs, rate: (addOneCount / addMs) * 1000 },
    errors: 0,
  };
};
