'use strict';
// The soak's report: one column per backend, the checks that must be zero first, then what happened.

/** The checks of one backend's result: name -> count; every one must be 0. */
function checks(result) {
  return {
    'jobs lost': result.lost.length,
    'double completions not explained by a kill': result.doubles.unexplained.length,
    'completions stored twice': result.doubles.stored.length,
    'attempts claimed twice': result.claimedTwice.length,
    'completed without a finished run': result.completedWithoutRun.length,
    'jobs failed (out of attempts)': result.failed.length,
    'flow parents run early': result.flows.earlyParents.length,
    'dependents run early or wrongly': result.dependencies.earlyDependents.length,
    'waits answered wrongly, rejected or unanswered':
      result.waits.wrong.length + result.waits.failed.length + result.waits.unanswered.length,
    'rolled-back adds stored': result.transactions.rolledBackStored.length,
    'dead letters of dead letters': result.deadLetters.ofLetters.length,
    'failed jobs without exactly one dead letter': result.deadLetters.notOne.length,
    'dead letters of a job that did not fail': result.deadLetters.withoutFailedOrigin.length,
    'processes that died unasked': result.diedUnasked.length,
    'processes that did not stop': result.notStopped.length,
    'jobs still open after the drain': result.drained ? 0 : result.notFinished,
  };
}

/** Whether every check of every backend is zero. */
function verdict(results) {
  const failures = results.flatMap((result) =>
    Object.entries(checks(result))
      .filter(([, count]) => count > 0)
      .map(([name, count]) => `${result.backend}: ${name} = ${count}`),
  );
  return { ok: failures.length === 0, failures };
}

/** The queues any backend deleted completed jobs of (delete mode). */
const deletingQueues = (results) => [...new Set(results.flatMap((r) => Object.keys(r.deleted ? r.deleted.byQueue : {})))].sort();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const thousands = (n) => n.toLocaleString('en-US');

function printSummary(results, options) {
  const rows = [];
  const section = (title) => rows.push([title]);
  const row = (name, cell) => rows.push([name, ...results.map(cell)]);
  section('must be 0');
  for (const name of Object.keys(checks(results[0]))) row(`  ${name}`, (r) => String(checks(r)[name]));
  section('re-runs (a handler started again)');
  row('  explained by a kill -9 of the earlier run', (r) => thousands(r.reruns.explained));
  row('  explained by a kill -9 of a later claim (stored runs)', (r) => thousands(r.reruns.claimedByKilled));
  row('  explained by the server restart', (r) => thousands(r.reruns.outage));
  row('  planned retries (first attempt threw)', (r) => thousands(r.reruns.planned));
  row('  planned snoozes (same attempt again)', (r) => thousands(r.reruns.snoozed));
  row('  not explained (a live process lost the job)', (r) => thousands(r.reruns.unexplained.length));
  row('  side effect twice, earlier run killed', (r) => thousands(r.doubles.explained));
  row('  side effect twice, across the server restart', (r) => thousands(r.doubles.outage));
  section('faults');
  row('  kill -9 consumers / producers', (r) => `${r.kills.consumer} / ${r.kills.producer}`);
  row('  PG backends terminated (rounds)', (r) =>
    r.faults.terminationRounds ? `${r.faults.terminations} (${r.faults.terminationRounds})` : '-',
  );
  row('  PG server restarts (took)', (r) => (r.faults.restarts.length ? r.faults.restarts.map((x) => `${x.ms} ms`).join(', ') : '-'));
  row('  SQLite write locks held by another connection (total)', (r) =>
    r.faults.writeLocks ? `${r.faults.writeLocks} (${seconds(r.faults.writeLockMs)})` : '-',
  );
  row('  boots refused while the server restarted', (r) => String(r.bootRefused.length));
  row('  boots cut by a backend termination', (r) => String(r.bootCut.length));
  row(
    '  library errors / warnings logged',
    (r) => `${thousands(r.libraryLog.counts.error || 0)} / ${thousands(r.libraryLog.counts.warn || 0)}`,
  );
  row('  add() calls that rejected (resent)', (r) => thousands(r.libraryLog.counts['producer-error'] || 0));
  section('jobs');
  row('  acknowledged by add()/addBulk()', (r) => thousands(r.acked));
  row('  stored / of them unacknowledged', (r) => `${thousands(r.stored)} / ${thousands(r.unacknowledged)}`);
  row('  completed (rows in the table)', (r) => thousands(r.completed));
  if (options.deleteOnComplete) {
    section('delete mode (completed jobs absent from the table)');
    row('  deleted in all (their run reached its end)', (r) => thousands(r.deleted.total));
    for (const queue of deletingQueues(results)) {
      row(`  of queue ${queue}`, (r) => thousands(r.deleted.byQueue[queue] || 0));
    }
    row('  added with removeOnComplete: true', (r) => thousands(r.deleted.perJob));
    row(
      '  with a stored completion (C) / with a finished run only (E)',
      (r) => `${thousands(r.deleted.stored)} / ${thousands(r.deleted.endOnly)}`,
    );
    row('  completed rows of soak-a seen, max / mean (samples)', (r) =>
      r.lingering.samples
        ? `${r.lingering.max} / ${(r.lingering.sum / r.lingering.samples).toFixed(1)} (${r.lingering.samples}; ${r.lingering.skippedForWaiters} skipped, waiters live)`
        : '-',
    );
  }
  row(
    '  transactional adds rolled back (id given again; marker stored by an earlier, unacknowledged try)',
    (r) => `${thousands(r.transactions.rolledBack)} (${r.transactions.rolledBackIdReused}; ${r.transactions.rolledBackStoredEarlier ?? 0})`,
  );
  row('  flows acknowledged (their jobs)', (r) => `${thousands(r.flows.acked)} (${thousands(r.flows.jobs)})`);
  row('  planned failures (leaves, their fail parents)', (r) => thousands(r.flows.expectedFailures));
  row(
    '  dependents (failed with a failed dependency; read fewer results, deleted)',
    (r) =>
      `${thousands(r.dependencies.dependents)} (${thousands(r.dependencies.failedAsPlanned)}; ${thousands(r.dependencies.ranAfterDeletedDependency)})`,
  );
  row(
    '  waits for a job (waitUntilFinished) begun / answered (job deleted before the wait)',
    (r) => `${thousands(r.waits.started)} / ${thousands(r.waits.answered)} (${thousands(r.waits.removedBeforeWait)})`,
  );
  row('  keyed re-adds (got a new job)', (r) => `${thousands(r.keyedAgain)} (${r.keyedAgainNewId})`);
  row(
    '  dead letters (failed again on the dead-letter queue)',
    (r) => `${thousands(r.deadLetters.count)} (${thousands(r.deadLetters.failedOnDeadLetterQueue)})`,
  );
  row('  handler starts', (r) => thousands(r.handlerStarts));
  section('time');
  row('  chaos / drain / total', (r) => `${seconds(r.chaosMs)} / ${seconds(r.drainedMs - r.chaosMs)} / ${seconds(r.drainedMs)}`);
  row('  completed jobs per second (whole run)', (r) =>
    thousands(Math.round((r.completed + (r.deleted ? r.deleted.total : 0)) / (r.drainedMs / 1000))),
  );

  const header = ['', ...results.map((r) => r.backend)];
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((cells) => (cells[i] ?? '').length)));
  const line = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[0]) : (cell ?? '').padStart(widths[i]))).join('  ');
  console.log(`\n=== chaos soak summary (seed ${options.seed}) ===`);
  console.log(line(header));
  for (const cells of rows) console.log(cells.length === 1 ? cells[0] : line(cells));

  for (const r of results) {
    const details = [
      ['lost', r.lost],
      ['unexplained double completions', r.doubles.unexplained],
      ['completions stored twice', r.doubles.stored],
      ['attempts claimed twice', r.claimedTwice],
      ['completed without a finished run', r.completedWithoutRun],
      ['failed', r.failed],
      ['flow parents run early', r.flows.earlyParents],
      ['dependents run early or wrongly', r.dependencies.earlyDependents],
      ['waits answered wrongly', r.waits.wrong],
      ['waits rejected', r.waits.failed],
      ['waits never answered', r.waits.unanswered],
      ['rolled-back adds stored', r.transactions.rolledBackStored],
      ['dead letters of dead letters', r.deadLetters.ofLetters],
      ['failed jobs without exactly one dead letter', r.deadLetters.notOne],
      ['dead letters of a job that did not fail', r.deadLetters.withoutFailedOrigin],
      ['unexplained re-runs', r.reruns.unexplained],
      ['not stopped', r.notStopped],
      ['fault injection errors', r.faults.faultErrors],
    ].filter(([, list]) => list.length);
    if (!details.length && !r.diedUnasked.length && !r.bootRefused.length && !r.bootCut.length && !r.libraryLog.samples.length) continue;
    console.log(`\n--- ${r.backend} details ---`);
    for (const [name, list] of details) {
      console.log(`${name} (${list.length}): ${list.slice(0, 5).join('; ')}${list.length > 5 ? '; ...' : ''}`);
    }
    const deaths = [
      ...r.diedUnasked.map((d) => ['died unasked', d]),
      ...r.bootRefused.map((d) => ['boot refused during the restart', d]),
      ...r.bootCut.map((d) => ['boot cut by a backend termination', d]),
    ];
    for (const [what, died] of deaths.slice(0, 8)) {
      console.log(
        `${what}: ${died.role} ${died.slot} pid ${died.pid} ${died.ready ? 'while running' : 'while booting'} (${died.phase}), ` +
          `code ${died.code} signal ${died.signal}: ${died.error}`,
      );
    }
    if (r.libraryLog.samples.length) console.log('what the library logged (most frequent first):');
    for (const sample of r.libraryLog.samples) console.log(`  ${String(sample.count).padStart(6)} x ${sample.example}`);
    if (r.kept) console.log(`ledgers and the dead processes' output kept in ${r.dir}`);
  }
  const { ok, failures } = verdict(results);
  console.log(
    ok
      ? '\nSOAK PASSED: nothing lost, no unexplained double completion, no process died unasked.'
      : `\nSOAK FAILED:\n  ${failures.join('\n  ')}`,
  );
}

module.exports = { printSummary, verdict, checks };
