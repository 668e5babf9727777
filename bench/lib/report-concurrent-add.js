'use strict';
// RESULTS.md section 7: concurrent single adds (group commit) and a lone add's latency.
const { fmt, ratio, pairedRatio, pairedSpread, table, asciiBars, median } = require('./report-helpers');

/** Per system: rates, latencies, and ratios against BullMQ and against one statement per add, same runs. */
function summarizeConcurrentAdd(data) {
  const ca = data['concurrent-add'];
  if (!ca) return undefined;
  const ok = (id) => (ca.results[id] || []).filter((r) => !r.skipped);
  const rates = (id) => ok(id).map((r) => r.concurrent.rate);
  const s = {};
  for (const { id, label } of ca.systems) {
    s[id] = {
      label,
      runs: ok(id).length,
      skipped: (ca.results[id] || []).find((r) => r.skipped)?.skipped,
      rate: median(rates(id)),
      rates: rates(id),
      p99: median(ok(id).map((r) => r.concurrent.p99)),
      loneP50: median(ok(id).map((r) => r.lone.p50)),
      loneP99: median(ok(id).map((r) => r.lone.p99)),
      loneP99s: ok(id).map((r) => r.lone.p99),
      loneRefP99s: ok(id).every((r) => r.loneReference) ? ok(id).map((r) => r.loneReference.p99) : undefined,
      // The same process's lone adds without group commit, taken in turns with these (older results have none).
      loneRefP50: ok(id).every((r) => r.loneReference) ? median(ok(id).map((r) => r.loneReference.p50)) : undefined,
      loneRefP99: ok(id).every((r) => r.loneReference) ? median(ok(id).map((r) => r.loneReference.p99)) : undefined,
      // Each run's lone p99 against its own reference's, then the median: the pairing the A/B was taken for. Medians
      // of the two columns taken apart can pair one run's slow tail with another's quiet one.
      loneVsRefP99: ok(id).every((r) => r.loneReference)
        ? pairedRatio(
            ok(id).map((r) => r.lone.p99),
            ok(id).map((r) => r.loneReference.p99),
          )
        : undefined,
      vsBull: pairedRatio(rates(id), rates('bullmq')),
      vsPerAdd: pairedRatio(rates(id), rates(`${id}-per-add`)),
      stored: ok(id).every((r) => r.stored >= r.concurrent.jobs + ca.sizes.loneCount),
      errors: ok(id).reduce((sum, r) => sum + (r.errors || 0), 0),
    };
  }
  return s;
}

/** The issue's targets of item 2, for the summary table. */
function concurrentAddTargets(data) {
  const s = summarizeConcurrentAdd(data);
  if (!s) return [];
  const rows = [];
  for (const [id, name] of [
    ['library', 'SQLite (sqlite3)'],
    ['library-bs3', 'SQLite (better-sqlite3)'],
    ['library-pg', 'PostgreSQL'],
  ]) {
    const x = s[id];
    if (!x) continue;
    const bull = s.bullmq;
    rows.push([
      `1,000 concurrent add() ≥ 3× BullMQ, ${name}`,
      `${ratio(x.vsBull)} (${fmt(x.rate)} adds/s; ${pairedSpread(x.rates, bull ? bull.rates : [])})`,
      x.runs ? x.vsBull >= 3 : null,
    ]);
    // Against BullMQ's PostgreSQL backend too.
    const bullPg = s['bullmq-pg'];
    if (bullPg && bullPg.runs) {
      const vs = pairedRatio(x.rates, bullPg.rates);
      rows.push([
        `1,000 concurrent add() ≥ 3× BullMQ's PostgreSQL backend, ${name}`,
        `${ratio(vs)} (${fmt(x.rate)} against ${fmt(bullPg.rate)} adds/s; ${pairedSpread(x.rates, bullPg.rates)})`,
        x.runs ? vs >= 3 : null,
      ]);
    }
    const ref = s[`${id}-per-add`];
    // Preferably the lone adds without group commit taken in turns with these, in the same process; else the
    // separate one-statement-per-add runs.
    const refP99 = x.loneRefP99 ?? (ref && ref.runs ? ref.loneP99 : undefined);
    if (refP99 !== undefined) {
      const paired = x.loneVsRefP99 !== undefined;
      rows.push([
        `lone add p99 unchanged by group commit, ${name}`,
        `${fmt(x.loneP99, 3)} ms vs ${fmt(refP99, 3)} ms one statement per add` +
          (paired
            ? ` (in turns, same process; same-run ratio ${ratio(x.loneVsRefP99)}, ${pairedSpread(x.loneP99s, x.loneRefP99s)})`
            : ` (separate runs; ${pairedSpread(x.loneP99s, ref.loneP99s)})`),
        // Same build, a fraction of a millisecond apart: within noise counts as unchanged. In turns, the median of the
        // runs' own ratios decides, as for every other ratio of this file.
        x.runs ? (paired ? x.loneVsRefP99 <= 1.25 : x.loneP99 <= refP99 * 1.25 + 0.1) : null,
      ]);
    }
  }
  return rows;
}

function concurrentAddSection(data) {
  const ca = data['concurrent-add'];
  const lines = ['## 7. Concurrent single adds (group commit)', ''];
  if (!ca) return [...lines, '_Not measured: these results predate the scenario._', ''];
  const s = summarizeConcurrentAdd(data);
  const { total, inFlight, loneCount } = ca.sizes;
  lines.push(
    `${fmt(inFlight)} callers at once, each awaiting its own \`add()\` of one job and starting the next as soon as it resolved (as`,
    `HTTP handlers do), until ${fmt(total)} jobs were added to one queue of a producer-only application; then the "lone add" latency:`,
    `${fmt(loneCount)} adds one after the other with nothing else in flight (measured first, in the same process). The library merges`,
    'the adds that arrive while an insert of their queue is in flight into the next INSERT (group commit: no timer, a lone add is',
    'written at once). "one statement per add" is the same build\'s `add()` with group commit taken out, each add its own statement as',
    `before: the A/B reference (${fmt(Math.max(inFlight, total / 4))} adds: it is slow). The library's lone adds alternate with as many of`,
    'that reference in the same process, one each in turn, which of the two goes first alternating ("lone, no group commit"): a paired measurement, which drift, a garbage',
    `collection or a checkpoint cannot put on one side only. BullMQ: \`Queue.add()\` on the local Redis, and on its PostgreSQL backend (same server, a tenth of the adds). Median of ${ca.results.bullmq ? ca.results.bullmq.length : 0} interleaved runs; ratios are medians of same-run ratios.`,
    '',
  );
  if (ca.pgProblem) lines.push(`_PostgreSQL rows skipped: ${ca.pgProblem}._`, '');
  lines.push(
    table(
      [
        'system',
        `adds/s, ${fmt(inFlight)} in flight`,
        'range',
        '× BullMQ',
        '× one statement per add',
        'p99 per add (in flight)',
        'lone add p50',
        'lone add p99',
        'lone, no group commit: p50 / p99',
        'all stored',
      ],
      ca.systems.map(({ id, label }) => {
        const x = s[id];
        if (!x.runs) return [label, `skipped: ${x.skipped}`, '', '', '', '', '', '', '', ''];
        return [
          label,
          `**${fmt(x.rate)}**`,
          x.rates.length > 1 ? `${fmt(Math.min(...x.rates))}–${fmt(Math.max(...x.rates))}` : '',
          ratio(x.vsBull),
          id.endsWith('per-add') || id.startsWith('bullmq') ? '' : ratio(x.vsPerAdd),
          `${fmt(x.p99, 1)} ms`,
          `${fmt(x.loneP50, 3)} ms`,
          `${fmt(x.loneP99, 3)} ms`,
          x.loneRefP99 !== undefined ? `${fmt(x.loneRefP50, 3)} / ${fmt(x.loneRefP99, 3)} ms` : '',
          `${x.stored ? 'yes' : 'NO'}${x.errors ? `, ${x.errors} errors` : ''}`,
        ];
      }),
    ),
    '',
    asciiBars(
      ca.systems
        .filter(({ id }) => s[id].runs)
        .map(({ id, label }) => [`${label}${id.endsWith('per-add') ? ` (${id.replace('-per-add', '')})` : ''}`, s[id].rate]),
      'adds/s',
    ),
    '',
  );
  return lines;
}

module.exports = { concurrentAddSection, concurrentAddTargets, summarizeConcurrentAdd };
