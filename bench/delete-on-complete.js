'use strict';
// The library end to end with and without `removeOnComplete: true` (the module's retention keeping no completed job),
// on each backend, the variants interleaved run by run: how much a completion that deletes its row saves against
// one that marks it completed (kept) and against the build before it (marked completed, then deleted by the
// retention keeper within a second). Each measurement is a child process of its own: one queue, concurrency 50,
// `DOC_JOBS` no-op jobs enqueued while the queue is paused, then the clock runs from resume until every job is
// processed and no outcome is left to write. CPU: the child's (process.cpuUsage, the library and the driver; on
// node-sqlite3 and better-sqlite3 that includes SQLite) until no completed row is left to delete (the rate stops at the
// last outcome written), and on PostgreSQL the server backends of the bench database
// (/proc) and the WAL the server wrote (pg_current_wal_lsn, which every database of the server advances).
//
//   npm run build && node bench/delete-on-complete.js
//   DOC_JOBS=40000 DOC_RUNS=5 DOC_BACKENDS=sqlite3,better-sqlite3,postgres DOC_BASE_DIST=/path/to/old/dist node bench/delete-on-complete.js
//
// DOC_BASE_DIST: a build of the library before this change (its removeOnComplete marks the row completed and the
// retention keeper deletes it); the `remove-before` variant runs on it when given.
const path = require('node:path');
const { fork } = require('node:child_process');
const os = require('node:os');

const JOBS = Number(process.env.DOC_JOBS ?? 40_000);
const RUNS = Number(process.env.DOC_RUNS ?? 5);
const BACKENDS = (process.env.DOC_BACKENDS ?? 'sqlite3,better-sqlite3,postgres').split(',');
const BASE_DIST = process.env.DOC_BASE_DIST;
const QUEUE = 'bench-doc';
const CONCURRENCY = 50;

/** The variants: whether the module's retention keeps nothing, and which build runs. */
const VARIANTS = [
  { id: 'keep', remove: false },
  { id: 'remove', remove: true },
  ...(BASE_DIST ? [{ id: 'remove-before', remove: true, dist: BASE_DIST }] : []),
];

async function child() {
  const { backend, remove, schema } = JSON.parse(process.argv[3]);
  const { startLibraryApp } = require('./lib/library-app');
  const { freshDbFile } = require('./lib/common');
  const pg = backend === 'postgres' ? require('./lib/postgres') : null;
  let options;
  if (pg) {
    await pg.ensureBenchDatabase();
    await pg.dropSchemas([schema]);
    options = { postgres: { url: pg.PG_URL, schema } };
  } else {
    options = { database: freshDbFile(`delete-on-complete-${process.pid}.sqlite`), driver: backend };
  }
  // How many completion statements the jobs took (their batch size): a faster statement leaves smaller batches.
  const batches = { calls: 0, jobs: 0 };
  const { DIST_DIR } = require('./lib/common');
  const roles = pg ? 'storage/postgres/roles/claim.storage' : 'storage/sqlite/roles/claim.storage';
  const Storage = Object.values(require(path.join(DIST_DIR, roles)))[0];
  const completeMany = Storage.prototype.completeMany;
  Storage.prototype.completeMany = function (completions, ...rest) {
    batches.calls++;
    batches.jobs += completions.length;
    return completeMany.call(this, completions, ...rest);
  };
  let handled = 0;
  const app = await startLibraryApp({
    // 100 ms: the retention keeper of the build before sweeps every 100 ms (min(pollInterval, 1 s)).
    options: { ...options, removeOnComplete: remove, pollInterval: 100 },
    queues: [QUEUE],
    concurrency: CONCURRENCY,
    handler: () => {
      handled++;
    },
  });
  await app.admin.pause(QUEUE);
  for (let added = 0; added < JOBS; added += 1000) {
    await app.producer.addBulk(
      QUEUE,
      Array.from({ length: Math.min(1000, JOBS - added) }, (_, i) => ({ data: { n: added + i } })),
    );
  }
  if (pg) await pg.analyzeSchema(schema);
  const wal = async () => (pg ? pg.withClient(pg.PG_URL, (c) => pg.scalar(c, "SELECT pg_current_wal_lsn() - '0/0'")) : 0);
  const wal0 = await wal();
  const server0 = pg ? pg.serverCpuMs().backends : 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await app.admin.resume(QUEUE);
  while (handled < JOBS) await new Promise((resolve) => setTimeout(resolve, 5));
  for (;;) {
    const counts = await app.admin.getCounts(QUEUE);
    if (counts.running === 0 && counts.pending === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const seconds = (performance.now() - t0) / 1000;
  // CPU until nothing is left to delete: the build before deletes the completed rows in its retention sweeps.
  if (remove) {
    while ((await app.admin.getCounts(QUEUE)).completed > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const cpu = process.cpuUsage(cpu0);
  const server = pg ? pg.serverCpuMs().backends - server0 : null;
  const walBytes = pg ? (await wal()) - wal0 : null;
  const counts = await app.admin.getCounts(QUEUE);
  await app.close();
  if (pg) await pg.dropSchemas([schema]);
  process.send({
    seconds,
    rate: JOBS / seconds,
    clientUsPerJob: ((cpu.user + cpu.system) / JOBS).toFixed(1),
    serverUsPerJob: server === null ? null : ((server * 1000) / JOBS).toFixed(1),
    walBytesPerJob: walBytes === null ? null : Math.round(walBytes / JOBS),
    completedLeft: counts.completed,
    jobsPerCompletion: (batches.jobs / Math.max(1, batches.calls)).toFixed(1),
    errors: app.log.errors,
  });
}

function measure(backend, variant, run) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    if (variant.dist) env.BENCH_DIST_DIR = variant.dist;
    const spec = { backend, remove: variant.remove, schema: `bench_doc_${run}` };
    const proc = fork(path.resolve(process.argv[1]), ['--child', JSON.stringify(spec)], {
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result;
    proc.on('message', (message) => (result = message));
    proc.on('exit', (code) => (result ? resolve(result) : reject(new Error(`${backend}/${variant.id}: child exited ${code}`))));
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main() {
  console.log(
    `# delete-on-complete: ${JOBS} jobs, ${RUNS} interleaved runs, load ${os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}`,
  );
  const rows = [];
  for (const backend of BACKENDS) {
    for (let run = 0; run < RUNS; run++) {
      // Rotated order, so no variant always runs first (or right after the same neighbour).
      const order = VARIANTS.map((_, i) => VARIANTS[(i + run) % VARIANTS.length]);
      for (const variant of order) {
        const result = await measure(backend, variant, run);
        const row = { backend, variant: variant.id, run, load1: os.loadavg()[0].toFixed(2), ...result };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
  }
  console.log(
    '\n| backend | variant | jobs/s (median) | client µs/job | server µs/job | WAL bytes/job | client × keep (paired) | server × keep (paired) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const backend of BACKENDS) {
    const of = (id) => rows.filter((row) => row.backend === backend && row.variant === id);
    const keep = of('keep');
    for (const variant of VARIANTS) {
      const mine = of(variant.id);
      const paired = (field) =>
        mine[0]?.[field] === null
          ? '—'
          : median(mine.map((row) => Number(row[field]) / Number(keep.find((k) => k.run === row.run)[field]))).toFixed(2) + '×';
      const range = (field) => {
        const values = mine.map((row) => Number(row[field]));
        return `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
      };
      console.log(
        `| ${backend} | ${variant.id} | ${range('rate')} | ${range('clientUsPerJob')} | ${mine[0].serverUsPerJob === null ? '—' : range('serverUsPerJob')} | ${
          mine[0].walBytesPerJob === null ? '—' : median(mine.map((row) => row.walBytesPerJob))
        } | ${paired('clientUsPerJob')} | ${paired('serverUsPerJob')} |`,
      );
    }
  }
}

if (process.argv[2] === '--child') {
  child().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
