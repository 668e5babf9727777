'use strict';
// RESULTS.md section 10: add() -> handler start across processes on PostgreSQL (LISTEN/NOTIFY).
const { fmt, table, median, pairedRatio, pairedSpread, perRun } = require('./report-helpers');

function summary(data) {
  const pl = data['pg-latency'];
  if (!pl || pl.skipped) return undefined;
  const ok = pl.results.filter((r) => !r.skipped);
  if (!ok.length) return undefined;
  const m = (path) => median(ok.map((r) => path.split('.').reduce((o, k) => o[k], r)));
  return {
    runs: ok.length,
    p99: m('fromResolved.p99'),
    p50: m('fromResolved.p50'),
    calledP50: m('fromCalled.p50'),
    calledP99: m('fromCalled.p99'),
    p99s: ok.map((r) => r.fromResolved.p99),
  };
}

/** PostgreSQL end to end against graphile-worker and pg-boss, same runs (scenario 6). */
function pgThroughputTargets(data) {
  const pg = data.postgres;
  if (!pg || pg.skipped) return [];
  const rates = (id) => (pg.results[id] || []).filter((r) => !r.skipped).map((r) => r.process.rate);
  const rows = [];
  const one = rates('library-1');
  if (one.length && rates('graphile').length)
    rows.push([
      'PostgreSQL, 1 process ≥ 1.5× graphile-worker (same runs)',
      `${fmt(pairedRatio(one, rates('graphile')), 2)}× (${pairedSpread(one, rates('graphile'))})`,
      pairedRatio(one, rates('graphile')) >= 1.5,
    ]);
  if (one.length && rates('pgboss').length)
    rows.push([
      'PostgreSQL, 1 process ≥ 3× pg-boss (same runs)',
      `${fmt(pairedRatio(one, rates('pgboss')), 2)}× (${pairedSpread(one, rates('pgboss'))})`,
      pairedRatio(one, rates('pgboss')) >= 3,
    ]);
  if (one.length && rates('bullmq-pg').length)
    rows.push([
      "PostgreSQL, 1 process ≥ 3× BullMQ's PostgreSQL backend (same runs)",
      `${fmt(pairedRatio(one, rates('bullmq-pg')), 2)}× (${pairedSpread(one, rates('bullmq-pg'))})`,
      pairedRatio(one, rates('bullmq-pg')) >= 3,
    ]);
  // "With 2 and 4 processes report the scaling curve and stay ahead of graphile-worker with the same number of processes":
  // both systems run 2 and 4 consumer processes released on one start signal, interleaved run by run.
  for (const n of [2, 4]) {
    const library = rates(`library-${n}`);
    const graphile = rates(`graphile-${n}`);
    if (!library.length) continue;
    const what = `PostgreSQL, ${n} processes ahead of graphile-worker with ${n} processes`;
    if (!graphile.length) {
      const why = pg.results[`graphile-${n}`] ? 'no run succeeded' : 'not in these results';
      rows.push([what, `not measured: graphile-worker with ${n} processes (${why})`, null]);
      continue;
    }
    const vs = pairedRatio(library, graphile);
    rows.push([
      what,
      `${fmt(vs, 2)}× (${pairedSpread(library, graphile)}; library ${fmt(median(library))} jobs/s, ${fmt(pairedRatio(library, one), 2)}× its 1 process; graphile-worker ` +
        `${fmt(median(graphile))} jobs/s, ${fmt(pairedRatio(graphile, rates('graphile')), 2)}× its 1 process)`,
      vs > 1,
    ]);
  }
  return rows;
}

function pgLatencyTargets(data) {
  const s = summary(data);
  if (!s) return pgThroughputTargets(data);
  return [
    ...pgThroughputTargets(data),
    [
      'PostgreSQL add() → start across processes (NOTIFY) p99 < 5 ms',
      `${fmt(s.p99, 2)} ms (p50 ${fmt(s.p50, 2)} ms; p99 ${perRun(s.p99s, 2, ' ms')})`,
      s.p99 < 5,
    ],
  ];
}

function pgLatencySection(data) {
  const pl = data['pg-latency'];
  const lines = ['## 10. PostgreSQL: add() to handler start across processes', ''];
  if (!pl) return [...lines, '_Not measured: these results predate the scenario._', ''];
  if (pl.skipped) return [...lines, `_Skipped: ${pl.skipped}._`, ''];
  const warmup = data.config && data.config.pgLatency ? data.config.pgLatency.warmup : undefined;
  lines.push(
    `A producer-only process adds ${fmt(pl.count)} jobs one at a time (after ${warmup ? `${fmt(warmup)} ` : ''}warm-up adds that are not counted), each awaited, then`,
    `${pl.gapMs} ms of pause before the next; a consumer process (concurrency 1), booted first, handles them.`,
    'The consumer hears of each job through LISTEN/NOTIFY (the enqueue statement notifies when a job is due), then claims it. Times',
    "are readings of the machine's monotonic clock in both processes (process.hrtime: one clock for every process; before",
    '2026-12-03 each process read its own performance.timeOrigin, and the two differed by milliseconds). "from add() resolved"',
    'starts when the insert has committed;',
    '"from add() called" includes that commit (a WAL flush).',
    '',
    table(
      ['run', 'from add() resolved p50', 'p95', 'p99', 'max', 'from add() called p50', 'p99', 'jobs'],
      pl.results.map((r, i) =>
        r.skipped
          ? [String(i + 1), `skipped: ${r.skipped}`, '', '', '', '', '', '']
          : [
              String(i + 1),
              `${fmt(r.fromResolved.p50, 2)} ms`,
              `${fmt(r.fromResolved.p95, 2)} ms`,
              `**${fmt(r.fromResolved.p99, 2)} ms**`,
              `${fmt(r.fromResolved.max, 1)} ms`,
              `${fmt(r.fromCalled.p50, 2)} ms`,
              `${fmt(r.fromCalled.p99, 2)} ms`,
              `${r.samples}${r.missing ? ` (${r.missing} never started)` : ''}`,
            ],
      ),
    ),
    '',
  );
  return lines;
}

module.exports = { pgLatencySection, pgLatencyTargets };
