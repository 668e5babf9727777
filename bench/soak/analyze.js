'use strict';
// Turns a soak run's ledgers, the final job table and the orchestrator's record of its own kills into the figures.
// Definitions (each counted per job id, the queue's identity of a job):
// - lost: acknowledged by add()/addBulk() (an `A` line) but not `completed` or `failed` in the table after the drain;
//   in delete mode (`deleting`: the queues whose retention deletes completed jobs), a job missing from the table
//   counts as completed, and deleted, only when it could be deleted (its queue is one of those, or it was added with
//   removeOnComplete: its `A` line ends in `r`) and a handler ran it to its end (`E`) or its completion was stored
//   (`C`); any other missing job is lost. Flows go to a queue that keeps everything: every node must be found;
// - re-run: a handler start after an earlier start of the same job. Planned when the earlier attempt threw on
//   purpose (`F`), explained when the process that ran the earlier attempt was killed by the soak, or when the
//   earlier attempt was under way during a server outage (it could not renew its lease nor store its outcome), or
//   when the job's stored run history says the earlier attempt's number last ended by the expired lease of a process
//   the soak killed (a snoozed attempt is claimed again with the same number: a claim that a kill cut before its
//   start leaves no `S` line, and its recovery spends the attempt); unexplained otherwise (the earlier process lived,
//   yet the job ran again: a lease lost by a live process, or a defect);
// - double completion: a second handler run to its end (`E`) of one job. Explained when the process of the earlier
//   `E` was killed (after its side effect, before its completion was stored) or finished during an outage,
//   unexplained otherwise; and any job
//   whose completion the queue reported twice (two `C` lines: two stored completions);
// - claimed twice: two starts of one job with the same attempt number (two owners of one attempt at once), unless the
//   earlier start snoozed the job on purpose (`Z`: a snooze spends no attempt, so the next start has the same number).
// Dead letters (rows with an origin): every job that failed for good in a soak queue while it ran (attempts > 0: a
// flow parent failed by its child's failure without running has none, as documented) has exactly one, in the
// dead-letter queue; a dead letter that fails there is never dead-lettered again (the dead-letter queue's own
// dead-letter queue is the first soak queue: a cycle). Checked: dead letters whose origin is a dead letter (must be
// 0), failed jobs of the soak queues without exactly one dead letter, dead letters whose origin is not a failed job.
// Transactions (an `R` line names the job of an add whose transaction was rolled back on purpose):
// - rolled back but stored: the row of a rolled-back add exists, its id holding its marker (must be 0);
// - its marker stored by an earlier try: another row holds the marker. A try that a kill cut short, or whose answer a
//   lost connection cut off after the server committed, is sent again (with a new roll of the dice: it may be the
//   rolled-back add), so the marker was stored, unacknowledged, before the rolled-back add (reported);
// - rolled-back id given to another job: a row has the id a rolled-back add's handle was given (reported).
// Flows (a `W` line names an acknowledged root and its size):
// - lost also counts every job of an acknowledged flow that is missing (fewer rows under the root than it held) or
//   not finished after the drain;
// - early parent: a parent's handler that started before one of its children had finished, or that read another
//   number of children's results (`P`) than its children that completed; a parent that 'fail's and ran although a
//   child of it failed or was cancelled counts too;
// - failed jobs are expected for leaves that fail for good on purpose (`ff`) and for 'fail' parents of a failed or
//   cancelled child: only the others count as failed.
// Waits (`V` a wait for a job's end began in a producer, `X` it answered, `Y` it rejected while the producer ran):
// - every wait answers with the job completed and its own result (the soak's waited jobs never fail for good), even
//   when the job's queue deletes completed rows; a rejection, or a wait of a process the soak never killed that never
//   answered, counts against it. In delete mode a JobNotFoundError is the documented answer for a deletable job whose
//   every run ended before the wait could have registered (WAIT_REGISTERS_MS after the call; counted apart); a job that
//   ended later, or one that is never deleted, counts.
// Dependencies (a `D` line names an acknowledged dependent, its onDependencyFailure and its dependencies' ids):
// - early dependent: a dependent's handler that started before one of its dependencies' runs had ended (its last `E`
//   or `U`), or that ran although a dependency failed for good under 'fail', or whose read of its dependencies'
//   results (`Q`) counted another number than its completed dependencies (fewer is allowed in delete mode, where a
//   completed dependency's row, and its result, may be gone);
// - a 'fail' dependent of a failed dependency must end failed without running: failed as planned, not counted as
//   failed; any other end of it is an early dependent.
const fs = require('node:fs');
const path = require('node:path');
const { readLedger } = require('./ledger');

/**
 * The longest a wait may take to register (its heartbeat write landing): the 5 s busy timeout the write may wait out,
 * behind writes of its process that wait as long, plus margin. A deletable job that ended later was seen by a
 * registered wait, and must not be found removed.
 */
const WAIT_REGISTERS_MS = 10_000;

/** The process id in a default worker id (`host:pid:random`), or null. */
function pidOfOwner(owner) {
  const match = /:(\d+):[0-9a-f]+$/.exec(owner || '');
  return match ? Number(match[1]) : null;
}

/**
 * Whether the job's stored run history says its attempt `attempt` last ended by an expired lease held by a process the
 * soak killed: a claim that the kill cut before the handler started (a snoozed attempt is claimed again with the same
 * number, so such a claim leaves no start of its own in any ledger).
 */
function lostByKilledClaim(row, attempt, killedPids) {
  const runs = ((row && row.runs) || []).filter((run) => run.attempt === attempt);
  const last = runs[runs.length - 1];
  return Boolean(last && last.outcome === 'lease-expired' && killedPids.has(pidOfOwner(last.owner)));
}

/** The stored run history of a job in one line: outcome, attempt and owner's pid of each record (the newest kept). */
function describeRuns(row) {
  if (!row) return 'row missing';
  if (!row.runs || !row.runs.length) return 'no run history';
  return `runs: ${row.runs.map((run) => `${run.outcome} #${run.attempt} pid ${pidOfOwner(run.owner) ?? run.owner}`).join(', ')}`;
}

/** The message of a row's last error, shortened, or 'no error'. */
function errorMessage(row) {
  if (!row.error) return 'no error';
  let message = row.error;
  try {
    message = JSON.parse(row.error).message ?? row.error;
  } catch {
    // Stored as plain text: shown as it is.
  }
  return String(message).replace(/\s+/g, ' ').slice(0, 160);
}

function analyze({ dir, rows, killedPids, outages = [], deleting }) {
  // The earlier run overlapped an outage: it was under way before the server came back, the later one after it went.
  const acrossOutage = (earlier, later) => outages.some((o) => earlier.t <= o.to && later.t >= o.from);
  const acked = new Map(); // jobId -> marker
  const ackedAs = new Map(); // marker -> { queue, removeOnComplete } (of its `A` line)
  let keyedAgain = 0;
  let keyedAgainNewId = 0;
  const starts = new Map(); // jobId -> [{ attempt, pid }]
  const planned = new Set(); // `${jobId}/${attempt}`
  const snoozes = new Map(); // `${jobId}/${attempt}` -> planned snoozes not yet matched with the next start
  const ends = new Map(); // jobId -> [{ pid, t }]
  const stored = new Map(); // jobId -> count of C
  const flowRoots = new Map(); // rootId -> { marker, size }
  const rolledBack = new Map(); // jobId -> marker
  const parentReads = new Map(); // jobId -> [{ results, t }]
  const dependents = new Map(); // jobId -> { marker, policy, dependencies: [ids] }
  const dependencyReads = new Map(); // jobId -> [{ results, t }]
  const failedForGood = new Map(); // jobId -> [{ t }] (planned `U` lines)
  const waits = new Map(); // `${jobId}/${pid}` -> { id, marker, pid, answers: [{ status, result } | { error }] }
  const waitOf = (id, marker, pid) => {
    const key = `${id}/${pid}`;
    if (!waits.has(key)) waits.set(key, { id, marker, pid: Number(pid), answers: [] });
    return waits.get(key);
  };
  const push = (map, key, value) => (map.has(key) ? map.get(key).push(value) : map.set(key, [value]));
  for (const file of fs.readdirSync(dir)) {
    const producerFile = /^producer-\d+\.log$/.test(file);
    const consumer = /^consumer-(\d+)\.log$/.exec(file);
    if (!producerFile && !consumer) continue;
    const pid = consumer ? Number(consumer[1]) : 0;
    for (const [kind, id, third, fourth, ...rest] of readLedger(path.join(dir, file))) {
      if (kind === 'A') {
        acked.set(id, third);
        ackedAs.set(third, { queue: fourth, removeOnComplete: rest[0] === 'r' });
      } else if (kind === 'K') {
        keyedAgain++;
        if (acked.get(id) !== third) {
          keyedAgainNewId++;
          acked.set(id, third);
        }
      } else if (kind === 'S') push(starts, id, { attempt: Number(third), pid, marker: fourth, t: Number(rest[0]) });
      else if (kind === 'F') planned.add(`${id}/${third}`);
      else if (kind === 'Z') snoozes.set(`${id}/${third}`, (snoozes.get(`${id}/${third}`) || 0) + 1);
      else if (kind === 'E') push(ends, id, { pid, t: Number(fourth) });
      else if (kind === 'C') stored.set(id, (stored.get(id) || 0) + 1);
      else if (kind === 'R') rolledBack.set(id, third);
      else if (kind === 'W') flowRoots.set(id, { marker: third, size: Number(fourth) });
      else if (kind === 'P') push(parentReads, id, { results: Number(fourth), t: Number(rest[0]) });
      else if (kind === 'D') dependents.set(id, { marker: third, policy: fourth, dependencies: rest[0].split(',') });
      else if (kind === 'Q') push(dependencyReads, id, { results: Number(fourth), t: Number(rest[0]) });
      else if (kind === 'U') push(failedForGood, id, { t: Number(fourth) });
      else if (kind === 'V') waitOf(id, third, fourth).t = Number(rest[0]);
      else if (kind === 'X') waitOf(id, third, rest[1]).answers.push({ status: fourth, result: rest[0] });
      else if (kind === 'Y') waitOf(id, third, rest[0]).answers.push({ error: fourth });
      else if (kind === 'N') waitOf(id, third, fourth).givenUp = true;
    }
  }
  const byId = new Map(rows.map((row) => [row.id, row]));
  const lost = [];
  const deletingQueues = new Set(deleting ? deleting.queues : []);
  const deleted = { byQueue: {}, perJob: 0, stored: 0, endOnly: 0 };
  for (const [id, marker] of acked) {
    const row = byId.get(id);
    if (!row && deleting) {
      const { queue, removeOnComplete } = ackedAs.get(marker) || {};
      if ((deletingQueues.has(queue) || removeOnComplete) && (ends.has(id) || stored.has(id))) {
        if (removeOnComplete) deleted.perJob++;
        else deleted.byQueue[queue] = (deleted.byQueue[queue] || 0) + 1;
        if (stored.has(id)) deleted.stored++;
        else deleted.endOnly++;
        continue;
      }
      lost.push(
        `${id} (${marker}, ${queue}${removeOnComplete ? ', removeOnComplete' : ''}): missing, ${ends.has(id) ? 'ran to its end' : 'never ran to its end'}`,
      );
      continue;
    }
    if (!row || (row.status !== 'completed' && row.status !== 'failed')) lost.push(`${id} (${marker}): ${row ? row.status : 'missing'}`);
  }
  const markers = new Map(rows.map((row) => [row.data.m, row.id]));
  const rolledBackStored = [...rolledBack]
    .filter(([id, marker]) => byId.get(id)?.data.m === marker)
    .map(([id, marker]) => `${marker} (rolled back as ${id}) stored`);
  const rolledBackStoredEarlier = [...rolledBack].filter(([id, marker]) => markers.has(marker) && byId.get(id)?.data.m !== marker).length;
  const rolledBackIdReused = [...rolledBack].filter(([id]) => byId.has(id)).length;
  const flows = analyzeFlows({ rows, byId, flowRoots, starts, parentReads });
  lost.push(...flows.lost);
  const graph = analyzeDependencies({ byId, dependents, dependencyReads, starts, ends, failedForGood, deleting: Boolean(deleting) });
  // A dead letter of a planned failure fails for good again on the dead-letter queue (same payload): planned too.
  const failed = rows
    .filter(
      (row) =>
        row.status === 'failed' &&
        !flows.expectedFailure(row) &&
        !graph.expectedFailure(row) &&
        !(row.origin !== null && row.data.ff === 1),
    )
    .map((row) => `${row.id} (${row.queue}, attempt ${row.attempts} of ${row.maxAttempts}: ${errorMessage(row)}; ${describeRuns(row)})`);
  const notFinished = rows.filter((row) => row.status !== 'completed' && row.status !== 'failed').length;
  const deadLetters = analyzeDeadLetters(rows, byId, flows.expectedFailure);
  const unacknowledged = rows.filter((row) => !acked.has(row.id) && !flows.nodes.has(row.id) && row.origin === null).length;

  const reruns = { planned: 0, snoozed: 0, explained: 0, claimedByKilled: 0, outage: 0, unexplained: [] };
  const claimedTwice = [];
  for (const [id, list] of starts) {
    list.sort((a, b) => a.attempt - b.attempt || a.t - b.t);
    for (let i = 1; i < list.length; i++) {
      const previous = list[i - 1];
      const snoozed = `${id}/${previous.attempt}`;
      if (list[i].attempt === previous.attempt && (snoozes.get(snoozed) || 0) > 0) {
        snoozes.set(snoozed, snoozes.get(snoozed) - 1);
        reruns.snoozed++;
      } else if (list[i].attempt === previous.attempt) {
        claimedTwice.push(`${id} attempt ${previous.attempt} (pids ${previous.pid}, ${list[i].pid})`);
      } else if (planned.has(`${id}/${previous.attempt}`)) reruns.planned++;
      else if (killedPids.has(previous.pid)) reruns.explained++;
      else if (acrossOutage(previous, list[i])) reruns.outage++;
      else if (lostByKilledClaim(byId.get(id), previous.attempt, killedPids)) reruns.claimedByKilled++;
      else {
        // A snooze of the earlier attempt that no start of the same attempt followed: the attempt was claimed again
        // after the snooze and that claim left no start (its process may have died between claim and start).
        const unfollowed = (snoozes.get(`${id}/${previous.attempt}`) || 0) > 0 ? ', which snoozed and was not started again' : '';
        reruns.unexplained.push(
          `${id} attempt ${list[i].attempt} after attempt ${previous.attempt} of live pid ${previous.pid}${unfollowed}` +
            ` (${describeRuns(byId.get(id))})`,
        );
      }
    }
  }
  const doubles = { explained: 0, outage: 0, unexplained: [], stored: [] };
  for (const [id, list] of ends) {
    list.sort((a, b) => a.t - b.t);
    for (let i = 1; i < list.length; i++) {
      if (killedPids.has(list[i - 1].pid)) doubles.explained++;
      else if (acrossOutage(list[i - 1], list[i])) doubles.outage++;
      else doubles.unexplained.push(`${id}: ran to its end in pid ${list[i - 1].pid} (not killed), then again in pid ${list[i].pid}`);
    }
  }
  for (const [id, count] of stored) if (count > 1) doubles.stored.push(`${id}: completion reported ${count} times`);
  // A completed job none of whose runs reached its end would be a completion stored without its handler finishing.
  const completedWithoutRun = rows.filter((row) => row.status === 'completed' && !ends.has(row.id)).map((row) => row.id);

  // Waits: every wait of a process the soak did not kill was answered once, with the job completed and its own result.
  const waitChecks = { started: waits.size, answered: 0, removedBeforeWait: 0, wrong: [], failed: [], unanswered: [] };
  // A job the soak may delete once completed (its queue deletes, or removeOnComplete) that ran to its end before its
  // wait registered (the wait's heartbeat write, which on SQLite queues behind the producer's writes and the soak's
  // write locks: within WAIT_REGISTERS_MS of the call): documented to reject with JobNotFoundError.
  const deletedBeforeWait = (id, t) => {
    const { queue, removeOnComplete } = ackedAs.get(acked.get(id)) || {};
    const list = ends.get(id) || [];
    return (deletingQueues.has(queue) || removeOnComplete) && list.length > 0 && list.every((end) => end.t <= t + WAIT_REGISTERS_MS);
  };
  for (const { id, marker, pid, answers, givenUp, t } of waits.values()) {
    if (answers.length === 0) {
      if (!killedPids.has(pid) && !givenUp) waitChecks.unanswered.push(`${id} (${marker}): waited for in live pid ${pid}, never answered`);
      continue;
    }
    waitChecks.answered++;
    for (const answer of answers) {
      if (answer.error === 'JobNotFoundError' && deleting && deletedBeforeWait(id, t)) waitChecks.removedBeforeWait++;
      else if (answer.error) {
        const ran = (ends.get(id) || []).map((end) => end.t - t);
        const when = ran.length ? ` (its run ended ${ran.map((ms) => `${ms} ms`).join(', ')} after the wait began)` : '';
        waitChecks.failed.push(`${id} (${marker}): the wait in pid ${pid} rejected with ${answer.error}${when}`);
      } else if (answer.status !== 'completed' || answer.result !== marker)
        waitChecks.wrong.push(`${id} (${marker}): the wait in pid ${pid} read ${answer.status} with result ${answer.result}`);
    }
  }

  let handlerStarts = 0;
  for (const list of starts.values()) handlerStarts += list.length;
  return {
    acked: acked.size,
    stored: rows.length,
    completed: rows.filter((row) => row.status === 'completed').length,
    deleted: deleting ? { ...deleted, total: deleted.stored + deleted.endOnly } : undefined,
    failed,
    notFinished,
    unacknowledged,
    keyedAgain,
    keyedAgainNewId,
    handlerStarts,
    lost,
    reruns,
    doubles,
    claimedTwice,
    completedWithoutRun,
    transactions: { rolledBack: rolledBack.size, rolledBackStored, rolledBackStoredEarlier, rolledBackIdReused },
    flows: { acked: flowRoots.size, jobs: flows.nodes.size, earlyParents: flows.earlyParents, expectedFailures: flows.expectedFailures },
    waits: waitChecks,
    dependencies: {
      dependents: dependents.size,
      earlyDependents: graph.early,
      failedAsPlanned: graph.failedAsPlanned,
      ranAfterDeletedDependency: graph.ranAfterDeleted,
    },
    deadLetters,
  };
}

/** The dead-letter checks (see the definitions above). */
function analyzeDeadLetters(rows, byId) {
  const letters = rows.filter((row) => row.origin !== null);
  const lettersOf = new Map(); // origin job id -> its dead letters
  for (const letter of letters) {
    const key = String(letter.origin.jobId);
    lettersOf.set(key, [...(lettersOf.get(key) || []), letter]);
  }
  const ofLetters = letters.filter((letter) => byId.get(String(letter.origin.jobId))?.origin != null).map((letter) => letter.id);
  const withoutFailedOrigin = letters
    .filter((letter) => byId.get(String(letter.origin.jobId))?.status !== 'failed')
    .map((letter) => `${letter.id} (of ${letter.origin.jobId}: ${byId.get(String(letter.origin.jobId))?.status ?? 'missing'})`);
  // Every job that failed for good while running, outside the dead-letter queue, has one dead letter.
  const failedSources = rows.filter((row) => row.status === 'failed' && row.origin === null && row.attempts > 0);
  const notOne = failedSources
    .filter((row) => (lettersOf.get(row.id) || []).length !== 1)
    .map((row) => `${row.id} (${row.queue}): ${(lettersOf.get(row.id) || []).length} dead letters`);
  return {
    count: letters.length,
    failedOnDeadLetterQueue: letters.filter((letter) => letter.status === 'failed').length,
    ofLetters,
    withoutFailedOrigin,
    notOne,
  };
}

/** The flow checks (see the definitions above): lost nodes, early parents, and which failures were planned. */
function analyzeFlows({ rows, byId, flowRoots, starts, parentReads }) {
  const children = new Map(); // parentId -> rows
  for (const row of rows) {
    if (row.parentId === null) continue;
    if (!children.has(row.parentId)) children.set(row.parentId, []);
    children.get(row.parentId).push(row);
  }
  const kids = (id) => children.get(id) || [];
  const ended = (row) => row.status === 'failed' || row.status === 'cancelled';
  const expectedFailure = (row) =>
    row.status === 'failed' && (row.data.ff === 1 || (row.onChildFailure === 'fail' && kids(row.id).some(ended)));
  const nodes = new Set();
  const lost = [];
  for (const [rootId, { marker, size }] of flowRoots) {
    const tree = [];
    const walk = (id) => {
      const row = byId.get(id);
      if (!row) return;
      tree.push(row);
      for (const child of kids(id)) walk(child.id);
    };
    walk(rootId);
    for (const row of tree) nodes.add(row.id);
    if (tree.length !== size) lost.push(`flow ${rootId} (${marker}): ${tree.length} of its ${size} jobs in the table`);
    for (const row of tree) {
      if (row.id !== rootId && row.status !== 'completed' && row.status !== 'failed') {
        lost.push(`${row.id} (flow ${rootId}, ${row.data.m}): ${row.status}`);
      }
    }
  }
  const earlyParents = [];
  for (const [id, list] of children) {
    const row = byId.get(id);
    if (!row || !nodes.has(id)) continue;
    const lastChildEnd = Math.max(...list.map((child) => child.finishedAt ?? Infinity));
    const completed = list.filter((child) => child.status === 'completed').length;
    for (const start of starts.get(id) || []) {
      if (start.t < lastChildEnd) earlyParents.push(`${id}: started at ${start.t}, a child finished at ${lastChildEnd}`);
    }
    for (const read of parentReads.get(id) || []) {
      if (read.results !== completed) earlyParents.push(`${id}: read ${read.results} results of ${completed} completed children`);
    }
    if (row.onChildFailure === 'fail' && list.some(ended) && (starts.get(id) || []).length) {
      earlyParents.push(`${id}: ran although a child failed (onChildFailure 'fail')`);
    }
  }
  const expectedFailures = rows.filter(expectedFailure).length;
  return { nodes, lost, earlyParents, expectedFailure, expectedFailures };
}

/** The dependency checks (see the definitions above). */
function analyzeDependencies({ byId, dependents, dependencyReads, starts, ends, failedForGood, deleting }) {
  const early = [];
  const plannedFailures = new Set();
  let ranAfterDeleted = 0;
  for (const [id, { marker, policy, dependencies }] of dependents) {
    // A dependency failed for good when its row says so (failed rows are never deleted in the soak).
    const failed = dependencies.filter((dep) => byId.get(dep)?.status === 'failed');
    const completed = dependencies.length - failed.length;
    const lastEnd = Math.max(
      0,
      ...dependencies.flatMap((dep) => [...(ends.get(dep) || []), ...(failedForGood.get(dep) || [])].map((e) => e.t)),
    );
    const runs = starts.get(id) || [];
    if (policy === 'fail' && failed.length > 0) {
      const row = byId.get(id);
      if (runs.length) early.push(`${id} (${marker}): ran although dependency ${failed[0]} failed (onDependencyFailure 'fail')`);
      else if (row?.status === 'failed' && row.attempts === 0) plannedFailures.add(id);
      else
        early.push(
          `${id} (${marker}): ${row ? `${row.status} after ${row.attempts} attempts` : 'missing'}, not failed by its failed dependency`,
        );
      continue;
    }
    for (const start of runs) {
      if (start.t < lastEnd) early.push(`${id} (${marker}): started at ${start.t}, a dependency's run ended at ${lastEnd}`);
    }
    for (const read of dependencyReads.get(id) || []) {
      if (read.results > completed || (!deleting && read.results !== completed)) {
        early.push(`${id} (${marker}): read ${read.results} results of ${completed} completed dependencies`);
      }
      if (read.results < completed) ranAfterDeleted++;
    }
  }
  return { early, failedAsPlanned: plannedFailures.size, ranAfterDeleted, expectedFailure: (row) => plannedFailures.has(row.id) };
}

module.exports = { analyze };
