'use strict';
// Turns the raw results of run.js into bench/RESULTS.md (and the rows of the throughput chart).
const { median } = require('./lib/common');
const { concurrentAddSection, concurrentAddTargets } = require('./lib/report-concurrent-add');
const { realHandlersSection, realHandlersTargets } = require('./lib/report-real-handlers');
const { footprintSection, footprintTargets } = require('./lib/report-footprint');
const { cpuSection, cpuTargets } = require('./lib/report-cpu');
const { pgLatencySection, pgLatencyTargets } = require('./lib/report-pg-latency');
const { telemetrySection, telemetryTargets } = require('./lib/report-telemetry');
const { pairedSpread, perRun } = require('./lib/report-helpers');

/** Where a missed PostgreSQL target's attempts are written down. */
const PG_TRIED =
  'what was tried: [completion plan](notes/2026-12-06-completion-plan.md), [finished-job layouts](notes/2026-12-06-finished-job-layouts.md), [delete on completion](notes/2026-12-06-delete-on-complete.md)';

const fmt = (value, digits = 0) =>
  typeof value === 'number' && Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const ms = (value) => fmt(value, 2);
const ratio = (value) => (Number.isFinite(value) ? `${fmt(value, 2)}×` : 'n/a');
const pct = (value) => (Number.isFinite(value) ? `${fmt(value * 100, 0)} %` : 'n/a');
const spread = (values, digits = 0) => (values.length > 1 ? `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}` : '');
const okText = (met) => (met === null ? 'n/a' : met ? '**met**' : '**MISSED**');

/** Median of per-run ratios a[i] / b[i] (runs are interleaved, so run i of both saw the same machine). */
function pairedRatio(a, b) {
  const n = Math.min(a.length, b.length);
  return median(Array.from({ length: n }, (_, i) => a[i] / b[i]));
}

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

function summarize(data) {
  const t = data.throughput;
  const ok = (id) => (t.results[id] || []).filter((r) => !r.skipped);
  const rates = (id, key) => ok(id).map((r) => r[key].rate);
  const s = {};
  for (const { id } of t.systems) {
    s[id] = {
      runs: ok(id).length,
      skipped: (t.results[id] || []).find((r) => r.skipped)?.skipped,
      process: rates(id, 'process'),
      bulk: rates(id, 'bulkEnqueue'),
      add: rates(id, 'addOne'),
      rss: ok(id).map((r) => r.process.rssMiB),
      errors: ok(id).reduce((sum, r) => sum + (r.errors || 0), 0),
      complete: ok(id).every((r) => r.process.completed === r.process.jobs && r.process.handled === r.process.jobs),
    };
    s[id].median = median(s[id].process);
    s[id].vsBull = pairedRatio(s[id].process, rates('bullmq', 'process'));
    s[id].vsPlain = pairedRatio(s[id].process, rates('plainjob', 'process'));
    s[id].vsRaw = pairedRatio(s[id].process, rates('raw-sqlite3', 'process'));
    s[id].vsRawBs3 = pairedRatio(s[id].process, rates('raw-bs3', 'process'));
  }
  return s;
}

function latencySummary(data) {
  const out = {};
  for (const { id, label } of data.latency.variants) {
    const runs = data.latency.results[id].filter((r) => !r.skipped);
    const pick = (key, p) => median(runs.map((r) => r[key][p]));
    out[id] = {
      label,
      runs: runs.length,
      skipped: data.latency.results[id].find((r) => r.skipped)?.skipped,
      p50: pick('fromResolved', 'p50'),
      p95: pick('fromResolved', 'p95'),
      p99: pick('fromResolved', 'p99'),
      p99s: runs.map((r) => r.fromResolved.p99),
      p50s: runs.map((r) => r.fromResolved.p50),
      calledP50: pick('fromCalled', 'p50'),
      calledP99: pick('fromCalled', 'p99'),
      samples: runs[0] ? runs[0].samples : 0,
    };
  }
  return out;
}

/**
 * Section 6: the PostgreSQL table (or why it was skipped). Baseline: pg-boss, run by run; the library and
 * graphile-worker also against their own one-process run (the scaling curve) and the library against graphile-worker
 * with as many processes.
 */
/**
 * How long graphile-worker's run() took from "go" to resolve, over every process of every run (recorded since its
 * runner starts inside the window; runs from before that record nothing and the sentence says no figure).
 */
function graphileStart(pg) {
  const starts = Object.entries(pg.results)
    .filter(([id]) => id === 'graphile' || id.startsWith('graphile-'))
    .flatMap(([, runs]) => runs.filter((r) => !r.skipped && Array.isArray(r.startMs)).flatMap((r) => r.startMs));
  if (!starts.length) return '';
  return ` (\`run()\` resolved ${fmt(median(starts), 0)} ms after "go", median of ${fmt(starts.length)} starts, ${fmt(Math.min(...starts), 0)}–${fmt(Math.max(...starts), 0)})`;
}

function postgresSection(data) {
  const pg = data.postgres;
  const lines = ['## 6. PostgreSQL', ''];
  if (!pg) return [...lines, '_Not measured: these results predate the PostgreSQL scenario._', ''];
  if (pg.skipped) return [...lines, `_Skipped: ${pg.skipped}._`, ''];
  const ok = (id) => (pg.results[id] || []).filter((r) => !r.skipped);
  const rates = (id, key) => ok(id).map((r) => r[key].rate);
  const graphileId = (processes) => (processes === 1 ? 'graphile' : `graphile-${processes}`);
  const isGraphile = (id) => id === 'graphile' || id.startsWith('graphile-');
  const perProcess = pg.concurrency * pg.queues;
  const inFlight = { pgboss: 'batchSize 50 per queue: 200', 'bullmq-pg': `${pg.concurrency} per queue: ${fmt(perProcess)}` };
  const notes = {
    pgboss: '1 `work()` per queue, `notifyWorker` after a full batch (else ≤ 400 jobs/s, see below)',
    'bullmq-pg': 'bullmq 6 `createPostgresBackend`, one Worker per queue (each its own pool of 10 + LISTEN); a 25th of the jobs',
  };
  lines.push(
    `${fmt(pg.total)} no-op jobs over ${pg.queues} queues on PostgreSQL ${pg.server} (127.0.0.1, database queue_bench, one schema per system,`,
    `dropped and created afresh for every run). Each system enqueues them with its bulk call in chunks of ${fmt(pg.chunk)} (\`addBulk\`,`,
    '`insert`, `addJobs`), the tables are ANALYZEd, then the jobs are processed. "End to end" runs from the start of processing',
    'until the database holds every job as completed. Every system connects before the clock starts, its jobs enqueued: the',
    'library\'s consumer processes boot with their queues paused and resume them on the common "go"; pg-boss and BullMQ\'s',
    'PostgreSQL workers boot (schema checked, every connection of their pools open) and the clock starts at `work()` and',
    "`worker.run()`, their calls that start processing. graphile-worker's consumer processes open their pool's 10 connections,",
    'compile their options and check the migrations before the clock, but start their runner on "go", inside the window: it has',
    'no documented way to hold jobs back from a runner whose local queue is on (the local queue fetches a batch as soon as the',
    "runner exists; `forbiddenFlags` are read only by a worker's own one-job fetch, outside the batch). What `run()` adds on",
    `"go", a migration check on an open connection and its LISTEN, is inside${graphileStart(pg)}.`,
    `The library runs with its default module options and \`forRoot({ postgres: { url, schema } })\`,`,
    `${pg.concurrency} per queue in each consumer process; graphile-worker one runner of ${fmt(perProcess)} in each. Baseline (1.00×): pg-boss,`,
    'measured in the same run. "× 1 process" is the scaling curve: each system against its own one-process run; "× graphile-worker,',
    'same processes" sets the library against graphile-worker with as many processes.',
    '',
  );
  const rows = pg.systems.map(({ id, label, processes }) => {
    const runs = ok(id);
    if (!runs.length)
      return [
        label,
        String(processes),
        '—',
        `skipped: ${pg.results[id].find((r) => r.skipped)?.skipped || 'no result'}`,
        '',
        '0',
        '',
        '',
        '',
        '',
        '',
        '',
      ];
    const processRates = rates(id, 'process');
    const bad = runs.reduce((sum, r) => sum + (r.errors || 0) + Math.abs(r.duplicates || 0), 0);
    const complete = runs.every((r) => r.process.completed === r.process.jobs && r.process.handled >= r.process.jobs);
    const concurrency =
      inFlight[id] ||
      (isGraphile(id)
        ? `${fmt(perProcess)} per process (one pool): ${fmt(perProcess * processes)}`
        : `${pg.concurrency} per queue per process: ${fmt(perProcess * processes)}`);
    const note =
      notes[id] ||
      (processes === 1
        ? isGraphile(id)
          ? 'local queue 200, `completeJobBatchDelay: 0`, pool 10; deletes completed jobs'
          : 'pool 10 + 1 LISTEN connection'
        : `jobs per process (run 1): ${runs[0].perProcess.map((n) => fmt(n)).join(' / ')}`);
    // The same system with one process: same label, one process (pg-boss runs one process only).
    const single =
      id === 'pgboss' || id === 'bullmq-pg' ? undefined : pg.systems.find((system) => system.label === label && system.processes === 1);
    return [
      label,
      String(processes),
      concurrency,
      `**${fmt(median(processRates))}**`,
      spread(processRates),
      String(runs.length),
      ratio(pairedRatio(processRates, rates('pgboss', 'process'))),
      single ? ratio(pairedRatio(processRates, rates(single.id, 'process'))) : '',
      id.startsWith('library-') ? ratio(pairedRatio(processRates, rates(graphileId(processes), 'process'))) : '',
      fmt(median(rates(id, 'bulkEnqueue'))),
      `${bad}${complete ? '' : ' (INCOMPLETE)'}`,
      note,
    ];
  });
  lines.push(
    table(
      [
        'system',
        'consumer processes',
        'concurrency (jobs in flight)',
        'end to end jobs/s',
        'range',
        'runs',
        '× pg-boss',
        '× 1 process',
        '× graphile-worker, same processes',
        'bulk enqueue jobs/s',
        'errors + duplicates',
        'note',
      ],
      rows,
    ),
    '',
  );
  lines.push(...postgresCpuTable(pg, ok));
  const samples = Object.values(pg.results)
    .flat()
    .flatMap((r) => r.errorSamples || []);
  if (samples.length) lines.push('Logged errors (samples):', '', '```', ...samples.slice(0, 5), '```', '');
  return lines;
}

/**
 * The PostgreSQL targets against graphile-worker with one process, paired run by run: the rate, and the CPU per job of
 * the consumers and the server's sessions together.
 */
function postgresTargets(data) {
  const pg = data.postgres;
  if (!pg || pg.skipped || !pg.results.graphile || !pg.results['library-1']) return [];
  const ok = (id) => pg.results[id].filter((r) => !r.skipped);
  const lib = ok('library-1');
  const graphile = ok('graphile');
  if (!lib.length || !graphile.length) return [];
  const rate = pairedRatio(
    lib.map((r) => r.process.rate),
    graphile.map((r) => r.process.rate),
  );
  const libRates = lib.map((r) => r.process.rate);
  const graphileRates = graphile.map((r) => r.process.rate);
  const rows = [
    [
      `PostgreSQL, one process: ≥ 1.3× graphile-worker's rate (median of ${lib.length} interleaved runs)`,
      `${ratio(rate)} (${pairedSpread(libRates, graphileRates)})`,
      rate >= 1.3,
      PG_TRIED,
    ],
  ];
  const cpu = (runs) => runs.filter((r) => r.cpu).map((r) => r.cpu.clientUs + r.cpu.serverUs);
  if (!cpu(lib).length || !cpu(graphile).length) return rows;
  const vs = pairedRatio(cpu(lib), cpu(graphile));
  const measured = `${ratio(vs)} (${fmt(median(cpu(lib)), 1)} against ${fmt(median(cpu(graphile)), 1)} µs; ${pairedSpread(cpu(lib), cpu(graphile))})`;
  rows.push(["PostgreSQL, one process: ≤ 0.9× graphile-worker's client + server CPU per job", measured, vs <= 0.9, PG_TRIED]);
  // The finished-jobs layout's own targets: a lower CPU bar with one process, and how the CPU holds up with more.
  rows.push([
    "PostgreSQL, one process: ≤ 0.7× graphile-worker's client + server CPU per job (finished-jobs layout)",
    measured,
    vs <= 0.7,
    PG_TRIED,
  ]);
  for (const processes of [2, 4]) {
    const many = pg.results[`library-${processes}`] ? ok(`library-${processes}`) : [];
    const theirs = pg.results[`graphile-${processes}`] ? ok(`graphile-${processes}`) : [];
    const perSecond = (runs) => runs.filter((r) => r.cpu).map((r) => r.cpu.jobsPerCpuSecond);
    if (perSecond(many).length && perSecond(theirs).length) {
      const vsTheirs = pairedRatio(perSecond(many), perSecond(theirs));
      rows.push([
        `PostgreSQL, ${processes} processes: jobs per CPU-second ≥ graphile-worker's with ${processes}`,
        `${ratio(vsTheirs)} (${fmt(median(perSecond(many)))} against ${fmt(median(perSecond(theirs)))}; ${pairedSpread(perSecond(many), perSecond(theirs))})`,
        vsTheirs >= 1,
        PG_TRIED,
      ]);
    }
    if (cpu(many).length) {
      const vsOne = pairedRatio(cpu(many), cpu(lib));
      rows.push([
        `PostgreSQL, ${processes} processes: CPU per job ≤ 1.2× the one-process figure`,
        `${ratio(vsOne)} (${fmt(median(cpu(many)), 1)} against ${fmt(median(cpu(lib)), 1)} µs; ${pairedSpread(cpu(many), cpu(lib))})`,
        vsOne <= 1.2,
        PG_TRIED,
      ]);
    }
  }
  return rows;
}

/**
 * CPU per job of the library and graphile-worker in the same runs (medians, with each one's range): the consumer
 * processes' own and the server's sessions of queue_bench, measured from "go" to the end; and jobs per CPU-second of
 * both together, the figure that says who gets more done with the machine when the server shares its cores.
 */
function postgresCpuTable(pg, ok) {
  const measured = pg.systems.filter(({ id }) => ok(id).some((r) => r.cpu));
  if (!measured.length) return [];
  const graphileId = (processes) => (processes === 1 ? 'graphile' : `graphile-${processes}`);
  const cpu = (id, key) =>
    ok(id)
      .filter((r) => r.cpu)
      .map((r) => r.cpu[key]);
  const cell = (values, digits) =>
    `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;
  const rows = measured.map(({ id, label, processes }) => {
    const total = ok(id)
      .filter((r) => r.cpu)
      .map((r) => r.cpu.clientUs + r.cpu.serverUs);
    const graphile = id.startsWith('library-') ? graphileId(processes) : undefined;
    const graphileTotal = graphile
      ? ok(graphile)
          .filter((r) => r.cpu)
          .map((r) => r.cpu.clientUs + r.cpu.serverUs)
      : [];
    return [
      label,
      String(processes),
      cell(cpu(id, 'clientUs'), 1),
      cell(cpu(id, 'serverUs'), 1),
      cell(total, 1),
      cell(cpu(id, 'jobsPerCpuSecond'), 0),
      graphileTotal.length ? ratio(pairedRatio(total, graphileTotal)) : '',
      fmt(median(cpu(id, 'sharedUs')), 1),
    ];
  });
  return [
    'CPU per job (µs, median and range of the runs): the consumer processes\' own (`process.cpuUsage`, from "go" to the "stop"',
    'sent once the database holds every job as completed, so a few idle polls after the last job are in it), and the',
    'server\'s sessions of the bench database (the parent\'s, which counts the completed jobs, among them) from "go" to that',
    'moment (from /proc). "Shared" is the server\'s own',
    'processes (WAL writer, checkpointer, autovacuum), which any other database on the server moves too: not counted in',
    'the totals. Jobs per CPU-second counts the consumers and those sessions together.',
    '',
    table(
      [
        'system',
        'consumer processes',
        'client µs/job',
        'server µs/job',
        'client + server µs/job',
        'jobs per CPU-second',
        'CPU per job × graphile-worker, same processes',
        'shared µs/job',
      ],
      rows,
    ),
    '',
  ];
}

/** What the Targets table and the sections both read of a run: the summaries and the per-scenario accessors. */
function scenarioViews(data) {
  const idle = data.idle;
  const backlog = data.backlog;
  const con = data.contention;
  return {
    s: summarize(data),
    lat: latencySummary(data),
    idle,
    idleMedian: (strategy, n) => median(idle.results[`${strategy}-${n}`].map((r) => r.perSecond)),
    idleCpu: (strategy, n) => median(idle.results[`${strategy}-${n}`].map((r) => r.cpuMsPerSecond)),
    backlog,
    bRate: (b) => backlog.results[b].map((r) => r.rate),
    bRss: (b) => backlog.results[b].map((r) => r.rssMiB),
    con,
    conTwo: con.results.two,
  };
}

/**
 * The rows of the Targets table: [target, measured, met, where what was tried is written down]. A row judged on the
 * median of several runs says how far those runs lay apart ("per run lo–hi"), computed from the same runs.
 */
function targetRows(data) {
  const { s, lat, idle, idleMedian, backlog, bRate, bRss, con, conTwo } = scenarioViews(data);
  const libIdle = idle.queueCounts.map((n) => idleMedian('library', n));
  const [small, large] = backlog.backlogs;
  const backlogRatio = pairedRatio(bRate(large), bRate(small));
  const rssSmall = median(bRss(small));
  const rssLarge = median(bRss(large));
  const conBusy = conTwo.reduce((sum, r) => sum + r.busy, 0) + con.results.single.reduce((sum, r) => sum + r.busy, 0);
  const conErrors = [...conTwo, ...con.results.single].reduce((sum, r) => sum + r.errors, 0);
  const conDup = [...conTwo, ...con.results.single].reduce((sum, r) => sum + Math.abs(r.duplicates), 0);
  const conLost = [...conTwo, ...con.results.single].filter((r) => r.completed !== r.total).length;
  const lib = s.library;
  const bs3 = s['library-bs3'];
  const processOf = (id) => (s[id] ? s[id].process : []);
  return [
    [
      'End-to-end throughput ≥ 3× BullMQ',
      `${ratio(lib.vsBull)} (${fmt(lib.median)} jobs/s; ${pairedSpread(lib.process, processOf('bullmq'))})`,
      lib.runs ? lib.vsBull >= 3 : null,
    ],
    [
      'End-to-end throughput ≥ 2× plainjob',
      `${ratio(lib.vsPlain)} (${pairedSpread(lib.process, processOf('plainjob'))})`,
      lib.runs ? lib.vsPlain >= 2 : null,
    ],
    [
      'End-to-end throughput ≥ 60 % of raw node-sqlite3 ceiling',
      `${pct(lib.vsRaw)} (${pairedSpread(lib.process, processOf('raw-sqlite3'), true)})`,
      lib.runs ? lib.vsRaw >= 0.6 : null,
    ],
    [
      '≥ 40,000 jobs/s with better-sqlite3',
      bs3.runs ? `${fmt(bs3.median)} jobs/s (${perRun(bs3.process, 0, ' jobs/s')})` : `not measured: ${bs3.skipped}`,
      bs3.runs ? bs3.median >= 40_000 : null,
    ],
    [
      'add() → handler start p50 < 2 ms',
      `${ms(lat.library.p50)} ms (${perRun(lat.library.p50s, 2, ' ms')})`,
      lat.library.runs ? lat.library.p50 < 2 : null,
    ],
    [
      'add() → handler start p99 < 10 ms',
      `${ms(lat.library.p99)} ms (${perRun(lat.library.p99s, 2, ' ms')})`,
      lat.library.runs ? lat.library.p99 < 10 : null,
    ],
    [
      'Idle statements/s independent of queue count',
      `${idle.queueCounts.map((n, i) => `${n}: ${fmt(libIdle[i], 2)}/s`).join(', ')}`,
      Math.max(...libIdle) <= Math.min(...libIdle) * 1.2 + 0.2,
    ],
    [
      '1M backlog throughput ≥ 80 % of 10k backlog',
      `${pct(backlogRatio)} (${pairedSpread(bRate(large), bRate(small), true)})`,
      backlogRatio >= 0.8,
    ],
    [
      'RSS bounded with a 1M backlog (≤ 10k-backlog RSS + 25 %)',
      `${fmt(rssLarge)} MiB vs ${fmt(rssSmall)} MiB (${pairedSpread(bRss(large), bRss(small))})`,
      rssLarge <= rssSmall * 1.25,
    ],
    [
      'Two processes on one file: zero SQLITE_BUSY / locked errors',
      `${conBusy} busy, ${conErrors} errors logged, ${conDup} duplicates, ${conLost} runs with lost jobs`,
      conBusy === 0 && conErrors === 0 && conDup === 0 && conLost === 0,
    ],
    ...cpuTargets(data),
    ...postgresTargets(data),
    ...concurrentAddTargets(data),
    ...realHandlersTargets(data),
    ...footprintTargets(data),
    ...pgLatencyTargets(data),
    ...telemetryTargets(data),
  ];
}

function buildReport(data) {
  const { machine, versions, config } = data;
  const { s, lat, idle, idleMedian, idleCpu, backlog, bRate, bRss, con, conTwo } = scenarioViews(data);
  const [small] = backlog.backlogs;

  const targets = targetRows(data);

  const tRows = data.throughput.systems.map(({ id, label, concurrency }) => {
    const x = s[id];
    if (!x.runs) return [label, '—', `skipped: ${x.skipped || 'no result'}`, '', '', '', '', '', '', '', '', ''];
    return [
      label,
      id === 'plainjob' ? '1 per queue (no option)' : id.startsWith('raw') ? '100-job batches' : `${concurrency} per queue`,
      `**${fmt(x.median)}**`,
      spread(x.process),
      String(x.runs),
      ratio(x.vsBull),
      pct(x.vsRaw),
      id === 'bullmq' ? '' : pct(/bs3|plainjob/.test(id) ? x.vsRawBs3 : x.vsRaw),
      fmt(median(x.bulk)),
      fmt(median(x.add)),
      fmt(median(x.rss)),
      `${x.errors}${x.complete ? '' : ' (INCOMPLETE)'}`,
    ];
  });

  const loadOf = (name) => (data.load && data.load[name] ? ` (load ${fmt(data.load[name].min, 1)}-${fmt(data.load[name].max, 1)})` : '');
  const lines = [];
  lines.push('# Benchmark results', '');
  lines.push(`Generated by \`npm run bench\` (bench/run.js) on ${data.date}; the whole run took ${fmt(data.durationMs / 60000, 1)} min.`);
  // The 15-minute budget of the whole run, by scenario: where a new scenario's minutes have to come from.
  if (data.timings)
    lines.push(
      `By scenario: ${Object.entries(data.timings)
        .map(([name, ms]) => `${name} ${fmt(ms / 60000, 1)} min${loadOf(name)}`)
        .join(', ')}.`,
    );
  // Older results.json files hold no load samples: their report states none rather than a made-up one.
  if (data.load && Object.keys(data.load).length) {
    const all = Object.values(data.load);
    lines.push(
      `Load average (1 minute, sampled every 5 s, the benchmark's own processes included): ${fmt(Math.min(...all.map((l) => l.min)), 1)} to ${fmt(Math.max(...all.map((l) => l.max)), 1)} over the run on ${machine.cores} cores.`,
    );
  }
  lines.push('Every figure is the **median** of the runs shown; ratios are the median of per-run ratios against a baseline');
  lines.push(
    'measured in the same run (systems are interleaved run by run, so a noisy spell of this shared machine hits all of them).',
    '',
  );
  lines.push('## Machine', '');
  lines.push(
    table(
      ['what', 'value'],
      [
        ['CPU', `${machine.cores} cores, ${machine.cpu}`],
        ['memory', `${machine.memoryGiB} GiB`],
        ['OS', machine.platform],
        ['Node.js', machine.node],
        [
          'library',
          `nestjs-sqlite-queue ${versions.library} (from dist/), TypeORM ${versions.root.typeorm}, @nestjs/core ${versions.root['@nestjs/core']}, RxJS ${versions.root.rxjs}`,
        ],
        [
          'node-sqlite3',
          `sqlite3 ${versions.root.sqlite3}, SQLite ${versions.sqlite.sqlite3} (the library's default driver and the raw ceiling)`,
        ],
        [
          'better-sqlite3',
          `better-sqlite3 ${versions.root['better-sqlite3']}, SQLite ${versions.sqlite.betterSqlite3} (the library's optional driver, plainjob and the raw ceiling)`,
        ],
        ['BullMQ', `bullmq ${versions.bench.bullmq}, ioredis ${versions.bench.ioredis}, Redis ${versions.redis} on 127.0.0.1 (DB index 7)`],
        ['plainjob', `plainjob ${versions.bench.plainjob}`],
        [
          'PostgreSQL',
          `${data.postgres && data.postgres.server ? `PostgreSQL ${data.postgres.server}` : 'not reached'} on 127.0.0.1 (database queue_bench); pg ${versions.bench.pg}, pg-boss ${versions.bench['pg-boss']}, graphile-worker ${versions.bench['graphile-worker']}`,
        ],
      ],
    ),
    '',
  );

  lines.push('## Targets', '');
  lines.push(
    table(
      ['target', 'measured', 'status'],
      // A missed target says where what was tried for it is written down.
      targets.map(([what, measured, met, tried]) => [what, measured, met === false && tried ? `${okText(met)}; ${tried}` : okText(met)]),
    ),
    '',
  );
  // Rows added by hand for targets that other scripts measure; bench/run.js carries them from one run to the next.
  lines.push(
    'Targets measured by their own scripts, not by this run (each row gives its date and method):',
    '',
    '<!-- OTHER-TARGETS: rows added by hand below this table header; bench/run.js keeps them. -->',
    '',
    '| target | measured | status |',
    '|---|---|---|',
    ...(data.otherTargets || []),
    '',
  );

  lines.push('## 1. Throughput', '');
  lines.push(
    `${fmt(config.throughput.total)} no-op jobs over ${config.queues.length} queues, enqueued with each system's bulk call in chunks of ${fmt(config.throughput.chunk)}, then processed.`,
    '"End to end" runs from the start of processing until every job is completed in the store, with every system booted',
    "before the clock starts: the library's consumer application boots with its queues paused (the producer paused them)",
    "and the clock starts when it resumes them; BullMQ's at `worker.run()` once its workers are ready; plainjob's at",
    '`worker.start()`; the raw ceilings\' at their first claim. "add()" enqueues' +
      (config.throughput.addOneCount ? ` ${fmt(config.throughput.addOneCount)} jobs` : ' jobs') +
      ' one at a time, each awaited, into an empty file',
    '(BullMQ: into the same Redis database, which still holds the completed jobs of the run). Database files use WAL.',
    'The library runs with its default module options. Baseline (1.00×): BullMQ.',
    '',
  );
  lines.push(
    table(
      [
        'system',
        'concurrency',
        'end to end jobs/s',
        'range',
        'runs',
        '× BullMQ',
        '% of raw node-sqlite3',
        '% of raw, same driver',
        'addBulk jobs/s',
        'add() jobs/s',
        'peak RSS MiB',
        'errors',
      ],
      tRows,
    ),
    '',
  );
  lines.push('![Throughput chart](throughput.svg)', '');
  lines.push(...cpuSection(data));

  lines.push('## 2. Latency: add() to handler start', '');
  lines.push(
    `One job at a time into an idle queue: the next add() comes ${config.latency.gapMs} ms after the handler started (a pause meant to let the`,
    'completion be written and any follow-up claim end; nothing checks that they did), starting 200 ms after boot;',
    `${fmt(config.latency.count)} jobs per run after ${config.latency.warmup} warm-up jobs; handler concurrency 1; the library with its default module options.`,
    'Measured from add() resolving to the first line of the handler, in the same process. Baseline: BullMQ.',
    '',
  );
  lines.push(
    table(
      ['system', 'p50 ms', 'p95 ms', 'p99 ms', 'p99 range', 'runs', 'p50 ÷ BullMQ p50', 'from add() called: p50 / p99 ms'],
      data.latency.variants.map(({ id }) => {
        const x = lat[id];
        if (!x.runs) return [x.label, `skipped: ${x.skipped}`, '', '', '', '0', '', ''];
        return [
          x.label,
          `**${ms(x.p50)}**`,
          ms(x.p95),
          `**${ms(x.p99)}**`,
          spread(x.p99s, 2),
          String(x.runs),
          ratio(pairedRatio(x.p50s, lat.bullmq.p50s)),
          `${ms(x.calledP50)} / ${ms(x.calledP99)}`,
        ];
      }),
    ),
    '',
  );

  lines.push('## 3. Idle cost', '');
  lines.push(
    `SQL statements per second while nothing is enqueued, counted by a TypeORM logger on a DataSource passed to forRoot({ dataSource }),`,
    `over a ${fmt(idle.windowMs / 1000, 0)} s window that starts ${config.idle.warmupMs ? `${fmt(config.idle.warmupMs / 1000, 1)} s ` : ''}after boot; pollInterval ${idle.pollInterval} ms for both. "Naive" is one setInterval per queue`,
    "running the same kind of claim statement (UPDATE … RETURNING) on the same table. CPU is the process's own (`process.cpuUsage`)",
    `over the same window. One run's ${idle.queueCounts.length * 2} processes run side by side (they are idle). Baseline: this library with 1 queue.`,
    '',
  );
  lines.push(
    table(
      [
        'strategy',
        ...idle.queueCounts.map((n) => `${n} queue${n > 1 ? 's' : ''}: stmts/s`),
        ...idle.queueCounts.map((n) => `${n}: CPU ms/s`),
        `runs`,
      ],
      ['library', 'naive'].map((strategy) => [
        strategy === 'library' ? 'this library (one shared poller)' : 'naive (one poller per queue)',
        ...idle.queueCounts.map(
          (n) => `${fmt(idleMedian(strategy, n), 2)} (${ratio(idleMedian(strategy, n) / idleMedian('library', idle.queueCounts[0]))})`,
        ),
        ...idle.queueCounts.map((n) => fmt(idleCpu(strategy, n), 1)),
        String(idle.results[`${strategy}-${idle.queueCounts[0]}`].length),
      ]),
    ),
    '',
  );

  lines.push('## 4. Backlog scaling', '');
  lines.push(
    `The library (sqlite3 driver, defaults, ${backlog.queues} queues × concurrency ${backlog.concurrency}) handles ${fmt(backlog.jobs)} jobs from a table that starts`,
    `with ${fmt(backlog.jobs)} + backlog pending jobs, so at least the backlog stays pending throughout. Filled with raw multi-row inserts`,
    `in the library's schema (${backlog.backlogs.map((b) => `${fmt(b + backlog.jobs)} rows in ${fmt(backlog.fills[b].ms / 1000, 1)} s`).join(', ')}), copied fresh for each run.`,
    'The filled file holds the queues paused: the library boots on it paused, and the rate is timed from when it resumes them to',
    'the last handler call, outside the boot, as in section 1; RSS is the peak of the processing process; "first job" counts',
    'from the start of boot (boot, resume and first claim). Baseline: the 10k backlog.',
    '',
  );
  lines.push(
    table(
      ['backlog (pending behind the measured jobs)', 'jobs/s', 'range', 'runs', 'ratio', 'peak RSS MiB', 'first job, ms from boot start'],
      backlog.backlogs.map((b) => [
        fmt(b),
        `**${fmt(median(bRate(b)))}**`,
        spread(bRate(b)),
        String(bRate(b).length),
        ratio(pairedRatio(bRate(b), bRate(small))),
        fmt(median(bRss(b))),
        fmt(median(backlog.results[b].map((r) => r.firstJobMs)), 0),
      ]),
    ),
    '',
  );

  lines.push('## 5. Contention: two processes on one file', '');
  lines.push(
    `Each process boots the library on the same file (4 queues × concurrency ${con.concurrency}), then produces its share of ${fmt(con.total)} jobs`,
    `with addBulk (chunks of ${con.chunk}) while processing any process's jobs. Timed from the common start signal until every job was`,
    'handled (the processes report their counts every 10 ms); the parent creates the schema before the processes boot. Errors are',
    'what the library logged at error or fatal level (a counting Nest logger); "busy" the messages of any level, warnings included,',
    'mentioning SQLITE_BUSY/LOCKED or "database (table) is locked". Baseline: one process doing the whole job alone.',
    '',
  );
  lines.push(
    table(
      ['setup', 'total jobs/s', 'range', 'runs', 'ratio', 'SQLITE_BUSY / locked', 'other errors logged', 'duplicates', 'completed / total'],
      [
        ['single', '1 process'],
        ['two', '2 processes'],
      ].map(([key, label]) => {
        const runs = con.results[key];
        return [
          label,
          `**${fmt(median(runs.map((r) => r.rate)))}**`,
          spread(runs.map((r) => r.rate)),
          String(runs.length),
          ratio(
            pairedRatio(
              runs.map((r) => r.rate),
              con.results.single.map((r) => r.rate),
            ),
          ),
          String(runs.reduce((sum, r) => sum + r.busy, 0)),
          String(runs.reduce((sum, r) => sum + r.errors - r.busy, 0)),
          String(runs.reduce((sum, r) => sum + r.duplicates, 0)),
          runs.map((r) => `${r.completed}/${r.total}`).join(', '),
        ];
      }),
    ),
    '',
  );
  const samples = [...conTwo, ...con.results.single].flatMap((r) => r.errorSamples);
  if (samples.length) lines.push('Logged errors (samples):', '', '```', ...samples.slice(0, 5), '```', '');

  lines.push(...postgresSection(data));
  lines.push(...concurrentAddSection(data));
  lines.push(...realHandlersSection(data));
  lines.push(...footprintSection(data));
  lines.push(...pgLatencySection(data));
  lines.push(...telemetrySection(data));

  lines.push('## Reading', '');
  lines.push(...readingSection(data), '');

  lines.push('## Method notes', '');
  lines.push(
    "- Every measurement runs in a fresh child process (clean RSS, no JIT or cache carried over); database files live in bench/.data/ (scenario 11's in a temporary directory) and are deleted afterwards.",
    "- Concurrency (scenario 1): the library and BullMQ 50 per queue (4 queues: 200 handlers at once; the library's default `prefetch: 'auto'`",
    '  may also hold up to twice that many jobs claimed ahead); plainjob has no concurrency option, so one worker per queue; the raw',
    '  ceilings take the queues in turn, one batch at a time: they claim 100 jobs per `UPDATE … RETURNING`, run their no-op handlers, and',
    '  complete the batch with one UPDATE.',
    "- The raw ceilings use the library's own table and indexes (taken from dist/), WAL and synchronous=NORMAL, with no TypeORM in between and their inserts, claim and completion prepared once and reused (node-sqlite3 included: a one-shot `db.all()` prepares again on every call; before 2026-11-30 the node-sqlite3 ceiling did that, and measured about 70k instead of about 95k jobs/s).",
    '- BullMQ keeps completed jobs (its default), like the SQLite systems keep their rows. Redis DB index 7 is flushed before and after each BullMQ run.',
    '- The machine is shared (other test suites may run at the same time): the range columns show how much a figure moved between runs.',
    "- Latency: BullMQ's worker often holds the job before add() has resolved (its blocking fetch races the reply), hence its tiny",
    '  "from add() resolved" figures; the "from add() called" column compares the two without that effect.',
    '- PostgreSQL: the library, pg-boss and graphile-worker hold 200 jobs in flight per process (the library 50 per queue, graphile-worker',
    '  one runner of 200, in each of their 1, 2 or 4 processes: 200, 400, 800 in all; pg-boss runs one process). pg-boss 10 waits out',
    '  `pollingIntervalSeconds` (at least 0.5 s) after every fetched batch, which caps 4 queues × 50 at 400 jobs/s; its handler calls',
    '  `notifyWorker` after a full batch so the backlog is drained without those pauses (the kindest setting for it). pg-boss 10 and',
    '  graphile-worker 0.17 are the last releases that run on Node 20.',
    "- PostgreSQL: every system's tables are ANALYZEd between enqueue and processing, as autovacuum would have done on a running system.",
    "  On a table that was never analyzed the library's claim sorts every pending row of a queue (100,000 jobs: 7.7k instead of",
    '  20.7k jobs/s, 49 ms instead of 4 ms per claim) until autovacuum (naptime 1 min) wakes up; a fresh schema per run made that random.',
    `- Runs per measurement: throughput ${config.throughput.runs}, latency ${config.latency.runs}, idle ${config.idle.runs}, backlog ${config.backlog.runs}, contention ${config.contention.runs}, PostgreSQL ${config.postgres ? config.postgres.runs : 0}` +
      // Older results.json files predate the later scenarios' settings: only the ones they hold are named.
      [
        ['concurrent add()', config.concurrentAdd],
        ['real handlers', config.realHandlers],
        ['PostgreSQL latency', config.pgLatency],
        ['OpenTelemetry', config.telemetry],
      ]
        .filter(([, settings]) => settings)
        .map(([name, settings]) => `, ${name} ${settings.runs}`)
        .join('') +
      '.',
    '',
  );
  return lines.join('\n');
}

/** Rows of the throughput chart: median jobs/s of each system and metric. */
function chartRows(data) {
  const s = summarize(data);
  const rows = [];
  const metrics = [
    ['process', 'End to end: enqueued backlog processed to completion'],
    ['bulk', 'Enqueue with the bulk call (addBulk / addMany / multi-row INSERT)'],
    ['add', 'Enqueue with add(), one job at a time'],
  ];
  for (const [key, metric] of metrics) {
    for (const { id, label } of data.throughput.systems) {
      const kind = id.startsWith('library') ? 'this library' : id.startsWith('raw') ? 'raw SQLite, no queue' : 'other queues';
      if (s[id].runs) rows.push({ label, kind, metric, value: Math.round(median(s[id][key])) });
    }
  }
  return rows;
}

/**
 * The hand-written reading of the run (kept by bench/run.js). It speaks of the run it was written for, named in its
 * marker: kept under a newer run, it says so first, so an old reading is never taken for this run's.
 */
function readingSection(data) {
  const reading = data.reading;
  const marker = (run) =>
    `<!-- READING run=${run}: written by hand about that run only; bench/run.js keeps this section. Lab notes, dated, are in bench/notes/. -->`;
  if (!reading) return [marker(data.date), '_To be written: what this run says, in a few paragraphs; what was tried is in bench/notes/._'];
  if (reading.run === data.date) return [marker(reading.run), reading.text];
  return [
    marker(reading.run),
    `_Written for the run of ${reading.run}, not this one: read it against that run's figures, kept in git history._`,
    '',
    reading.text.replace(/^_Written for the run of [^\n]*\n\n/, ''),
  ];
}

module.exports = { buildReport, chartRows, postgresSection, targetRows };
