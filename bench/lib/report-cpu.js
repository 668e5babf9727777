'use strict';
// RESULTS.md: the per-job CPU split of scenario 1, and the raised SQLite targets.
const { fmt, ratio, table, asciiBars, median, pairedRatio, pairedSpread } = require('./report-helpers');

/** Where a missed SQLite target's attempts are written down. */
const SQLITE_TRIED =
  "what was tried: [the runs' reading](notes/2026-12-03-reading-of-the-runs.md), [batch handlers](notes/2026-12-06-batch-handlers.md), [worker path](notes/2026-12-07-worker-path-cpu.md), [claim and completion statements](notes/2026-12-07-claim-statement-cost.md), [completion by change count](notes/2026-12-07-completion-by-change-count.md)";

const KINDS = [
  ['jsUs', 'JavaScript (main thread, GC pauses excluded)'],
  ['gcUs', 'GC pauses (main thread)'],
  ['poolUs', "libuv pool threads (node-sqlite3: SQLite's work)"],
  ['helpersUs', 'V8 helper threads (concurrent GC, compiler)'],
];

function cpuSection(data) {
  const t = data.throughput;
  const lines = ['## 1b. Per-job CPU profile (scenario 1)', ''];
  const withCpu = t.systems.filter(({ id }) => (t.results[id] || []).some((r) => r.process && r.process.cpuPerJob));
  if (!withCpu.length) return [...lines, '_Not measured: these results predate the per-thread CPU split._', ''];
  lines.push(
    'CPU time per job during the end-to-end phase of scenario 1, per thread of the process, read from `/proc/self/task/*/stat`',
    "(10 ms ticks, summed over the whole phase) and V8's `gc` performance entries. The threads Node starts with are V8's helpers;",
    "threads that appear later are libuv's pool, where node-sqlite3 runs every statement (better-sqlite3 runs SQLite on the main",
    'thread, so there it is inside "JavaScript"; plainjob uses better-sqlite3 too). BullMQ\'s work is split with its server: the',
    '"server" column is the CPU of the local redis-server in the same window (from /proc), counted in its total. Median of the runs,',
    'the total with its range.',
    '',
  );
  const rows = withCpu.map(({ id, label }) => {
    const runs = t.results[id].filter((r) => r.process && r.process.cpuPerJob).map((r) => r.process.cpuPerJob);
    const m = (key) => median(runs.map((r) => r[key] ?? 0));
    const totals = runs.map((r) => r.totalUs + (r.serverUs ?? 0));
    return {
      label,
      values: Object.fromEntries([...KINDS.map(([key]) => [key, m(key)]), ['serverUs', m('serverUs')], ['totalUs', median(totals)]]),
      range: `${fmt(Math.min(...totals), 1)}–${fmt(Math.max(...totals), 1)}`,
    };
  });
  lines.push(
    table(
      ['system', ...KINDS.map(([, name]) => `${name}, µs/job`), 'server (Redis), µs/job', 'total µs/job', 'range'],
      rows.map((r) => [
        r.label,
        ...KINDS.map(([key]) => fmt(r.values[key], 1)),
        r.values.serverUs ? fmt(r.values.serverUs, 1) : '',
        `**${fmt(r.values.totalUs, 1)}**`,
        r.range,
      ]),
    ),
    '',
    asciiBars(
      rows.flatMap((r) => KINDS.map(([key, name]) => [`${r.label}: ${name.split(' (')[0]}`, r.values[key]])),
      'µs/job',
      40,
    ),
    '',
  );
  return lines;
}

/** The raised SQLite targets, median of the interleaved runs of scenario 1. */
function cpuTargets(data) {
  const t = data.throughput;
  const rates = (id) => (t.results[id] || []).filter((r) => !r.skipped).map((r) => r.process.rate);
  const lib = rates('library');
  if (!lib.length) return [];
  const vsRaw = pairedRatio(lib, rates('raw-sqlite3'));
  const vsBull = pairedRatio(lib, rates('bullmq'));
  const cpuOf = (id) =>
    (t.results[id] || [])
      .filter((r) => !r.skipped && r.process.cpuPerJob)
      .map((r) => r.process.cpuPerJob.totalUs + (r.process.cpuPerJob.serverUs ?? 0));
  const cpuTarget = (libId, rawId, name) => {
    const libCpu = cpuOf(libId);
    const rawCpu = cpuOf(rawId);
    if (!libCpu.length || !rawCpu.length) return [];
    const vs = pairedRatio(libCpu, rawCpu);
    return [
      [
        `CPU per job ≤ 1.6× raw ${name}'s (median of ${libCpu.length} interleaved runs)`,
        `${ratio(vs)} (${fmt(median(libCpu), 1)} against ${fmt(median(rawCpu), 1)} µs; ${pairedSpread(libCpu, rawCpu)})`,
        vs <= 1.6,
        SQLITE_TRIED,
      ],
    ];
  };
  const bs3 = rates('library-bs3');
  const bs3VsRaw = bs3.length ? pairedRatio(bs3, rates('raw-bs3')) : NaN;
  return [
    [
      `Raised target: ≥ 75 % of raw node-sqlite3 (median of ${lib.length} interleaved runs)`,
      `${fmt(vsRaw * 100)} % (${pairedSpread(lib, rates('raw-sqlite3'), true)})`,
      vsRaw >= 0.75,
      SQLITE_TRIED,
    ],
    ...(bs3.length
      ? [
          [
            `≥ 75 % of raw better-sqlite3 (median of ${bs3.length} interleaved runs)`,
            `${fmt(bs3VsRaw * 100)} % (${pairedSpread(bs3, rates('raw-bs3'), true)})`,
            bs3VsRaw >= 0.75,
            SQLITE_TRIED,
          ],
        ]
      : []),
    ...cpuTarget('library', 'raw-sqlite3', 'node-sqlite3'),
    ...cpuTarget('library-bs3', 'raw-bs3', 'better-sqlite3'),
    [
      `Raised target: ≥ 4× BullMQ end to end (median of ${lib.length} interleaved runs)`,
      `${ratio(vsBull)} (${pairedSpread(lib, rates('bullmq'))})`,
      vsBull >= 4,
      SQLITE_TRIED,
    ],
  ];
}

module.exports = { cpuSection, cpuTargets };
