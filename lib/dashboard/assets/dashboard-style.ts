/**
 * The dashboard's stylesheet: system fonts, colours with at least 4.5:1 contrast, one column under 700 px, and a dark
 * theme when the system asks for one (prefers-color-scheme): every colour is a variable the dark block redefines.
 */
export const DASHBOARD_STYLE = String.raw`
:root { color-scheme: light dark; --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --link: #0550ae; --focus: #bf3989; --ok: #1a7f37; --bad: #cf222e; --p50: #0969da; --p95: #bc4c00;
  --button: #f6f8fa; --button-hover: #eaeef2; --button-line: #8c959f; --input: #ffffff;
  --ok-bg: #dafbe1; --ok-fg: #116329; --ok-line: #4ac26b; --bad-bg: #ffebe9; --bad-fg: #82071e; --bad-line: #ff8182;
  --pending-bg: #ddf4ff; --pending-fg: #0a3069; --running-bg: #fbefff; --running-fg: #512a97;
  --none-bg: #eaeef2; --none-fg: #24292f; --paused-bg: #fff8c5; --paused-fg: #633c01; --paused-line: #d4a72c; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9da7b3; --line: #3d444d; --bg: #0d1117; --soft: #161b22;
    --link: #4493f8; --focus: #f778ba; --ok: #3fb950; --bad: #f85149; --p50: #58a6ff; --p95: #f0883e;
    --button: #21262d; --button-hover: #30363d; --button-line: #6e7681; --input: #0d1117;
    --ok-bg: #12361f; --ok-fg: #7ee787; --ok-line: #2ea043; --bad-bg: #3c1618; --bad-fg: #ffa198; --bad-line: #da3633;
    --pending-bg: #0c2d6b; --pending-fg: #a5d6ff; --running-bg: #2e1a5e; --running-fg: #d2a8ff;
    --none-bg: #30363d; --none-fg: #e6edf3; --paused-bg: #3b2e00; --paused-fg: #f2cc60; --paused-line: #9e6a03; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg);
  overflow-wrap: break-word; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: var(--fg); color: var(--bg); padding: 8px 12px; z-index: 10; }
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
/* A queue name is up to 128 characters, maybe without a space: whole but wrapped in its page's heading, cut in a
   table cell with the whole in its tooltip (the link's title), so neither widens the page. */
h1 .queue-title { min-width: 0; overflow-wrap: anywhere; }
a.queue-name { display: inline-block; max-width: 20em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
.status-line { min-height: 0; margin: 0 20px; }
.status-line:not(:empty) { margin: 10px 20px 0; padding: 8px 12px; border-radius: 6px; border: 1px solid var(--ok-line); background: var(--ok-bg); }
.status-line.error { border-color: var(--bad-line); background: var(--bad-bg); }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 7px 9px; border-bottom: 1px solid var(--line); vertical-align: middle; white-space: nowrap; }
th { background: var(--soft); font-weight: 600; font-size: 0.9em; }
tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.wrap { white-space: normal; overflow-wrap: anywhere; min-width: 6em; }
/* The job table fits 1280 px whatever the names, keys and errors: those cells wrap, an error shows three lines. */
table.jobs td.name { max-width: 14em; }
table.jobs td.key { max-width: 12em; }
table.jobs td.error { min-width: 12em; max-width: 28em; }
table.jobs td.error span, td .clamp { display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; }
th.pick, td.pick { width: 2em; padding-right: 0; }
a.sort { font-weight: 600; color: var(--link); text-decoration: none; }
a.sort:hover { text-decoration: underline; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: end; margin: 8px 0; }
.toolbar.bulk { margin: 6px 0; }
td.actions { display: flex; gap: 6px; flex-wrap: wrap; }
.panel { margin: 0; }
ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 1.2em; border-left: 1px solid var(--line); }
ul.tree { padding-left: 0.6em; }
ul.tree li { margin: 4px 0; }
ol.logs { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--soft); border: 1px solid var(--line);
  border-radius: 6px; padding: 8px 8px 8px 3.5em; margin: 0; max-height: 24em; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.error-box.history { border-left-color: var(--muted); }
.ok-text { color: var(--ok); } .bad-text { color: var(--bad); }
.pcts .p50 { color: var(--p50); font-weight: 600; } .pcts .p95 { color: var(--p95); font-weight: 600; }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 0.85em; font-weight: 600; border: 1px solid transparent; }
.badge.pending { background: var(--pending-bg); color: var(--pending-fg); }
.badge.running { background: var(--running-bg); color: var(--running-fg); }
.badge.claimed { background: var(--running-bg); color: var(--running-fg); opacity: 0.75; }
.badge.completed { background: var(--ok-bg); color: var(--ok-fg); }
.badge.failed { background: var(--bad-bg); color: var(--bad-fg); }
.badge.cancelled, .badge.none { background: var(--none-bg); color: var(--none-fg); }
.badge.paused { background: var(--paused-bg); color: var(--paused-fg); border-color: var(--paused-line); }
.badge.active { background: var(--ok-bg); color: var(--ok-fg); }
button, .button { font: inherit; padding: 5px 12px; border-radius: 6px; border: 1px solid var(--button-line); background: var(--button); color: var(--fg); cursor: pointer; }
button:hover { background: var(--button-hover); }
button.danger { color: var(--bad-fg); border-color: var(--bad); }
button:disabled { opacity: 0.6; cursor: default; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin: 8px 0 12px; }
.toolbar form, form.inline { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: end; }
label { display: flex; flex-direction: column; font-size: 0.85em; color: var(--muted); gap: 2px; }
input, select { font: inherit; padding: 4px 8px; border: 1px solid var(--button-line); border-radius: 6px; color: var(--fg); background: var(--input); }
input[type="checkbox"] { width: 1.1em; height: 1.1em; accent-color: var(--link); }
.tabs { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0; padding: 0; list-style: none; }
.tabs a { display: inline-block; padding: 4px 10px; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; }
.tabs a[aria-current="page"] { background: var(--fg); color: var(--bg); border-color: var(--fg); }
.pager { display: flex; gap: 12px; align-items: center; margin: 10px 0; flex-wrap: wrap; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg.chart { width: 100%; height: auto; display: block; }
svg.spark { display: block; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 0.85em; color: var(--muted); margin-top: 4px; }
.swatch { display: inline-block; width: 12px; height: 3px; vertical-align: middle; margin-right: 4px; }
.swatch.completed { background: var(--ok); } .swatch.failed { background: var(--bad); }
.swatch.p50 { background: var(--p50); } .swatch.p95 { background: var(--p95); }
/* Chart colours from the theme (the SVG's own attributes are the fallback). */
svg .series-completed { stroke: var(--ok); } svg .series-failed { stroke: var(--bad); }
svg .series-p50 { stroke: var(--p50); } svg .series-p95 { stroke: var(--p95); }
svg .dot { stroke: none; } svg .dot.series-completed { fill: var(--ok); } svg .dot.series-failed { fill: var(--bad); }
svg .dot.series-p50 { fill: var(--p50); } svg .dot.series-p95 { fill: var(--p95); }
svg .grid { stroke: var(--line); } svg .axis { fill: var(--muted); }
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
  table.jobs td.name, table.jobs td.key, table.jobs td.error { max-width: none; }
  td.actions { justify-content: flex-end; }
  a.queue-name { max-width: 100%; }
}
`;
