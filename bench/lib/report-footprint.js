'use strict';
// RESULTS.md section 9: disk and memory per job, RSS with 1M pending, retention keeping the file bounded.
const { fmt, table, asciiBars, median } = require('./report-helpers');

/** Peak RSS of the processing process with the biggest backlog of scenario 4 (1M pending jobs by default). */
function backlogRss(data) {
  const backlog = data.backlog;
  if (!backlog) return undefined;
  const large = Math.max(...backlog.backlogs);
  return { backlog: large, rssMiB: median(backlog.results[large].map((r) => r.rssMiB)) };
}

function footprintTargets(data) {
  const fp = data.footprint;
  if (!fp || !fp.retention || fp.retention.skipped) return [];
  const sizes = fp.retention.sizes.map((s) => s.fileBytes);
  const half = sizes.slice(Math.floor(sizes.length / 2));
  const bounded = Math.max(...half) <= Math.min(...half) * 1.1 + 1_048_576;
  const total = fp.retention.rounds * fp.retention.perRound;
  return [
    [
      `Retention keeps the SQLite file bounded (${fmt(total)} jobs, scaled down from 10M: see section 9)`,
      `${sizes.map((b) => fmt(b / 1_048_576, 1)).join(' → ')} MiB`,
      bounded,
    ],
  ];
}

function footprintSection(data) {
  const fp = data.footprint;
  const lines = ['## 9. Disk and memory per job', ''];
  if (!fp) return [...lines, '_Not measured: these results predate the scenario._', ''];
  const rows = fp.systems
    .filter(({ id }) => fp.results[id])
    .map(({ id, label }) => {
      const r = fp.results[id];
      if (r.skipped) return [label, `skipped: ${r.skipped}`, ''];
      const note =
        id === 'bullmq'
          ? `growth of used_memory (instance-wide) per job; cross-check, MEMORY USAGE of this queue's keys: ${fmt(r.hashBytes)} B per job hash (sampled) + wait list ${fmt(r.listBytes / r.count, 1)} B per job`
          : id === 'library'
            ? 'file size after the WAL is checkpointed into it, minus the empty schema'
            : 'pg_total_relation_size of the jobs table (heap, indexes, TOAST), minus the empty table';
      return [label, `**${fmt(r.perJob)}**`, note];
    });
  lines.push(
    `${fmt(fp.count)} pending jobs with a small payload (\`{ i }\`), added with each system's bulk call; one run (sizes do not vary with machine noise,`,
    'except Redis `used_memory`, which counts the whole instance).',
    '',
    table(['system', 'bytes per pending job', 'how'], rows),
    '',
    asciiBars(
      fp.systems.filter(({ id }) => fp.results[id] && !fp.results[id].skipped).map(({ id, label }) => [label, fp.results[id].perJob]),
      'bytes/job',
      40,
    ),
    '',
  );
  const rss = backlogRss(data);
  if (rss)
    lines.push(
      `**RSS with ${fmt(rss.backlog)} pending jobs**: ${fmt(rss.rssMiB)} MiB peak for the process that works through them (scenario 4): the`,
      'library never loads the backlog, it claims from the index as slots free up.',
      '',
    );
  const kept = fp.retention;
  if (kept && !kept.skipped) {
    const total = kept.rounds * kept.perRound;
    lines.push(
      `**Retention.** ${kept.rounds} rounds of ${fmt(kept.perRound)} jobs (4 queues, concurrency 50) added and processed at full speed with`,
      `\`removeOnComplete: { count: ${fmt(kept.keep)} }\`, ${fmt(total)} jobs in ${fmt(kept.ms / 1000, 1)} s. The issue asks for a 10M-job run; at this`,
      `machine's rate that alone would take 5 to 10 minutes of the 15-minute budget, so the proof is scaled down: what matters is whether the`,
      'file stops growing once retention deletes as fast as jobs finish, when later rounds reuse the pages the deleted rows freed. The',
      'target is judged on the database file (WAL apart) over the second half of the rounds: met when their largest size is at most',
      'their smallest + 10 % + 1 MiB. Size after each round:',
      '',
      table(
        ['jobs so far', 'database file', 'WAL', 'rows in the table'],
        kept.sizes.map((s) => [
          fmt(s.jobs),
          `${fmt(s.fileBytes / 1_048_576, 1)} MiB`,
          `${fmt(s.walBytes / 1_048_576, 1)} MiB`,
          fmt(s.rows),
        ]),
      ),
      '',
      asciiBars(
        kept.sizes.map((s) => [`${fmt(s.jobs)} jobs`, s.fileBytes / 1_048_576]),
        'MiB',
        40,
      ),
      '',
      'VACUUM strategy: none needed while retention runs. SQLite puts the pages that DELETEs free on its free list and reuses them for',
      'new rows, so a file under steady retention stays at the size of its live rows plus the kept ones. The library leaves',
      '`auto_vacuum` off (its default): incremental vacuum would move pages on every commit for space that the next inserts reuse',
      'anyway. The file only shrinks by `VACUUM` (or `QueueAdmin.backup()`, whose `VACUUM INTO` copy is compact), worth it once after a',
      'one-off spike, such as a big backlog that was drained; before this round, one 1,000-row batch per queue per second capped',
      'retention below the processing rate and the file grew without end.',
      '',
    );
  }
  return lines;
}

module.exports = { footprintSection, footprintTargets };
