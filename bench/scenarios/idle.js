'use strict';
// Scenario 3: cost of doing nothing. SQL statements per second (and CPU) while idle with 1, 10 and 100
// queues registered: this library (one shared poller) vs a naive strategy (one setInterval poller per queue,
// each running the claim statement). Statements are counted by a TypeORM logger on a DataSource we create.
require('reflect-metadata');
const { DataSource } = require('typeorm');
const { freshDbFile, runChild, repeat, sleep, now } = require('../lib/common');
const raw = require('../lib/raw-sql');

const POLL_INTERVAL = 1000; // the library's default, used by both strategies

function countingDataSource(file) {
  const counter = { statements: 0 };
  const ignore = () => {};
  const logger = {
    logQuery: () => counter.statements++,
    logQueryError: ignore,
    logQuerySlow: ignore,
    logSchemaBuild: ignore,
    logMigration: ignore,
    log: ignore,
  };
  const dataSource = new DataSource({ type: 'sqlite', database: file, enableWAL: true, busyTimeout: 5000, entities: [], logger });
  return { dataSource, counter };
}

/** Child: one strategy, one queue count; counts statements over `windowMs` after `warmupMs`. */
exports.measure = async ({ strategy, queueCount, warmupMs, windowMs }) => {
  const { dataSource, counter } = countingDataSource(freshDbFile(`idle-${strategy}-${queueCount}.sqlite`));
  const queues = Array.from({ length: queueCount }, (_, i) => `idle-${i}`);
  let stop;
  if (strategy === 'library') {
    const { startLibraryApp } = require('../lib/library-app');
    const app = await startLibraryApp({ options: { dataSource, pollInterval: POLL_INTERVAL }, queues, concurrency: 1 });
    stop = async () => {
      await app.close();
      await dataSource.destroy();
    };
  } else {
    await dataSource.initialize();
    for (const statement of raw.SCHEMA_SQL) await dataSource.query(statement);
    // The naive way: every queue polls on its own timer. The leading comment makes TypeORM return the rows.
    const timers = queues.map((queue) =>
      setInterval(() => {
        const time = Date.now();
        void dataSource.query(`/* claim */ ${raw.CLAIM_SQL}`, ['naive', time + 30_000, time, time, queue, time, 1]);
      }, POLL_INTERVAL),
    );
    stop = async () => {
      timers.forEach(clearInterval);
      await sleep(50);
      await dataSource.destroy();
    };
  }
  await sleep(warmupMs);
  const before = { statements: counter.statements, cpu: process.cpuUsage(), t: now() };
  await sleep(windowMs);
  const seconds = (now() - before.t) / 1000;
  const cpu = process.cpuUsage(before.cpu);
  const statements = counter.statements - before.statements;
  await stop();
  return {
    strategy,
    queueCount,
    seconds,
    statements,
    perSecond: statements / seconds,
    cpuMsPerSecond: (cpu.user + cpu.system) / 1000 / seconds,
  };
};

/** Parent: every combination, all children of one run side by side (they are idle, so they do not compete). */
async function run({ runs, queueCounts, warmupMs, windowMs }) {
  const combos = [];
  for (const strategy of ['library', 'naive']) for (const queueCount of queueCounts) combos.push({ strategy, queueCount });
  const results = Object.fromEntries(combos.map(({ strategy, queueCount }) => [`${strategy}-${queueCount}`, []]));
  await repeat(runs, async (rep) => {
    console.log(`idle: run ${rep + 1}/${runs} (${combos.length} processes side by side, ${windowMs} ms window)`);
    const outcomes = await Promise.all(combos.map((combo) => runChild('scenarios/idle.js', 'measure', { ...combo, warmupMs, windowMs })));
    outcomes.forEach((outcome) => results[`${outcome.strategy}-${outcome.queueCount}`].push(outcome));
  });
  return { pollInterval: POLL_INTERVAL, queueCounts, windowMs, results };
}

module.exports.run = run;
