/** The dashboard's stylesheet: system fonts, colours with at least 4.5:1 contrast, one column under 700 px. */
export const DASHBOARD_STYLE = String.raw`
:root { color-scheme: light; --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --link: #0550ae; --focus: #bf3989; --ok: #1a7f37; --bad: #cf222e; --wait: #0969da; --run: #8250df; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: var(--fg); color: #fff; padding: 8px 12px; z-index: 10; }
.skip:focus { left: 8px; top: 8px; }
.top { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 8px 24px; padding: 10px 20px; border-bottom: 1px solid var(--line); background: var(--soft); }
.top nav { display: flex; gap: 18px; align-items: baseline; }
.top nav a { font-weight: 600; text-decoration: none; padding: 4px 0; }
.top nav a:hover { text-decoration: underline; }
.brand { font-size: 1.15em; color: var(--fg) !important; }
.live { margin: 0; color: var(--muted); font-size: 0.9em; }
main { padding: 16px 20px 40px; max-width: 1400px; margin: 0 auto; }
main:focus { outline: none; }
h1 small { font-size: 0.6em; font-weight: 500; }
h1 { font-size: 1.5em; margin: 0.2em 0 0.6em; display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; }
h2 { font-size: 1.15em; margin: 1.4em 0 0.5em; }
.status-line { min-height: 0; margin: 0 20px; }
.status-line:not(:empty) { margin: 10px 20px 0; padding: 8px 12px; border-radius: 6px; border: 1px solid #4ac26b; background: #dafbe1; }
.status-line.error { border-color: #ff8182; background: #ffebe9; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 7px 9px; border-bottom: 1px solid var(--line); vertical-align: middle; white-space: nowrap; }
th { background: var(--soft); font-weight: 600; font-size: 0.9em; }
tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.wrap { white-space: normal; word-break: break-word; min-width: 14em; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 0.85em; font-weight: 600; border: 1px solid transparent; }
.badge.pending { background: #ddf4ff; color: #0a3069; }
.badge.running { background: #fbefff; color: #512a97; }
.badge.completed { background: #dafbe1; color: #116329; }
.badge.failed { background: #ffebe9; color: #82071e; }
.badge.cancelled, .badge.none { background: #eaeef2; color: #24292f; }
.badge.paused { background: #fff8c5; color: #633c01; border-color: #d4a72c; }
.badge.active { background: #dafbe1; color: #116329; }
button, .button { font: inherit; padding: 5px 12px; border-radius: 6px; border: 1px solid #8c959f; background: #f6f8fa; color: var(--fg); cursor: pointer; }
button:hover { background: #eaeef2; }
button.danger { color: #82071e; border-color: #cf222e; }
button:disabled { opacity: 0.6; cursor: default; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin: 8px 0 12px; }
.toolbar form, form.inline { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: end; }
label { display: flex; flex-direction: column; font-size: 0.85em; color: var(--muted); gap: 2px; }
input, select { font: inherit; padding: 4px 8px; border: 1px solid #8c959f; border-radius: 6px; color: var(--fg); background: #fff; }
.tabs { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0; padding: 0; list-style: none; }
.tabs a { display: inline-block; padding: 4px 10px; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; }
.tabs a[aria-current="page"] { background: var(--fg); color: #fff; border-color: var(--fg); }
.pager { display: flex; gap: 12px; align-items: center; margin: 10px 0; flex-wrap: wrap; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg.chart { width: 100%; height: auto; display: block; }
svg.spark { display: block; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 0.85em; color: var(--muted); margin-top: 4px; }
.swatch { display: inline-block; width: 12px; height: 3px; vertical-align: middle; margin-right: 4px; }
.swatch.completed { background: var(--ok); } .swatch.failed { background: var(--bad); }
.swatch.wait { background: var(--wait); } .swatch.run { background: var(--run); }
.metric { display: flex; flex-direction: column; align-items: flex-start; gap: 2px; font-size: 0.85em; color: var(--muted); }
.muted { color: var(--muted); }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; word-break: break-word; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px; overflow: auto; max-height: 28em; white-space: pre-wrap; word-break: break-word; margin: 0; }
.error-box { border-left: 4px solid var(--bad); padding-left: 10px; }
progress { width: 16em; max-width: 100%; }
@media (max-width: 700px) {
  main { padding: 12px 10px 32px; }
  .top { padding: 8px 10px; }
  h1 { font-size: 1.25em; }
  dl.fields { grid-template-columns: 1fr; }
  dl.fields dd { margin-bottom: 6px; }
  /* Tables become one card per row: each cell says what it is. */
  table.cards thead { display: none; }
  table.cards, table.cards tbody, table.cards tr, table.cards th, table.cards td { display: block; width: 100%; }
  table.cards tr { border-bottom: 1px solid var(--line); padding: 6px 0; }
  table.cards th, table.cards td { border: 0; padding: 3px 10px; white-space: normal; text-align: left; }
  table.cards td[data-label] { display: flex; gap: 12px; justify-content: space-between; align-items: center; }
  table.cards td[data-label]::before { content: attr(data-label); color: var(--muted); font-size: 0.85em; }
  .table-wrap { overflow-x: visible; }
}
`;
