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

/** The spread of the per-run ratios a[i] / b[i]: "per run 0.91–1.08×" (or in %, with `percent`). */
function pairedSpread(a, b, percent = false) {
  const n = Math.min(a.length, b.length);
  if (n < 2) return '';
  const each = Array.from({ length: n }, (_, i) => a[i] / b[i]);
  const lo = Math.min(...each);
  const hi = Math.max(...each);
  return percent ? `per run ${fmt(lo * 100)}–${fmt(hi * 100)} %` : `per run ${fmt(lo, 2)}–${fmt(hi, 2)}×`;
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

module.exports = { fmt, ratio, okText, pairedRatio, pairedSpread, table, asciiBars, median };
