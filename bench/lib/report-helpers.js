'use strict';
// Small formatting helpers shared by the report sections of the newer scenarios.
const { median } = require('./common');

const fmt = (value, digits = 0) =>
  typeof value === 'number' && Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const ratio = (value) => (Number.isFinite(value) ? `${fmt(value, 2)}×` : 'n/a');
const okText = (met) => (met === null ? 'n/a' : met ? '**met**' : '**MISSED**');

/** Median of per-run ratios a[i] / b[i] (runs are interleaved, so run i of both saw the same machine). */
function pairedRatio(a, b) {
  const n = Math.min(a.length, b.length);
  return median(Array.from({ length: n }, (_, i) => a[i] / b[i]));
}

/** Each run's own ratio a[i] / b[i], in run order (runs are interleaved, so run i of both saw the same machine). */
function pairedValues(a, b) {
  const n = Math.min(a.length, b.length);
  return Array.from({ length: n }, (_, i) => a[i] / b[i]);
}

/**
 * The range of the runs' own values: "per run 60–68 %". A target judged on a median states how far the runs it took
 * the median of lay apart, so a verdict near its threshold shows whether the runs agreed. One run gives one value.
 */
function perRun(values, digits, unit) {
  const each = values.filter((value) => Number.isFinite(value));
  if (!each.length) return '';
  const lo = fmt(Math.min(...each), digits);
  const hi = fmt(Math.max(...each), digits);
  return `per run ${each.length > 1 ? `${lo}–${hi}` : lo}${unit}`;
}

/** The spread of the per-run ratios a[i] / b[i]: "per run 0.91–1.08×" (or in %, with `percent`). */
function pairedSpread(a, b, percent = false) {
  const each = pairedValues(a, b);
  return percent
    ? perRun(
        each.map((value) => value * 100),
        0,
        ' %',
      )
    : perRun(each, 2, '×');
}

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** A horizontal ASCII bar chart (a fenced block): one bar per [label, value], scaled to the largest. */
function asciiBars(rows, unit, width = 50) {
  const max = Math.max(...rows.map(([, value]) => (Number.isFinite(value) ? value : 0)), 1);
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  return [
    '```',
    ...rows.map(([label, value]) => {
      const bar = Number.isFinite(value) ? '█'.repeat(Math.max(1, Math.round((value / max) * width))) : '';
      return `${label.padEnd(labelWidth)} │${bar} ${fmt(value)} ${unit}`;
    }),
    '```',
  ].join('\n');
}

module.exports = { fmt, ratio, okText, pairedRatio, pairedValues, perRun, pairedSpread, table, asciiBars, median };
