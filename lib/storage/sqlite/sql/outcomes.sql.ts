import { EVENT_READERS_TABLE, FINISH_WAITERS_MARK } from '../../../table-names.constants';
import { AttemptRef, Completion } from '../../queue-storage.interface';
import { StatementRunner } from '../../shared/statement-runner';
import { FINISH_WAITERS_TTL } from '../../shared/finish-waiters';
import { appendRunSql } from './run-history.sql';
import { T } from './sqlite-sql-fragments';

/**
 * Completes many attempts in one statement, each fenced by its own attempt number. It returns no rows: its change
 * count says whether every attempt was still ours (each item matches at most its own row, and only while that row
 * runs that attempt for this worker), which is the rule; only a short count reads back which were (see
 * `COMPLETED_BY_SQL`). A returned row cost node-sqlite3 about 0.5 µs of the main thread per job, and SQLite the
 * RETURNING's work, for an answer that is "all of them" but for a lost lease or a cancel. The unary + keeps the
 * planner off the owner index and off the running index: walking the batch and looking each row up by id is
 * O(batch), walking every running row against the batch is O(running x batch). The
 * `+status` matters once the file has statistics (an operator ran ANALYZE or `PRAGMA optimize`): with them SQLite
 * chose the running index, 4x the CPU per job (bench/row-layout.js). It keeps `locked_by`: the completed row names
 * the process that ran it (`JobRun.owner`), at no write more (no index holds the column). `batched`: some item is a
 * batch handler's job, carrying the size of its call as a fifth item, which the completed run keeps (`run_batch`); a
 * single-job handler's item has four, so `->> 4` is null and the column stays as it is. Without `batched` the size is
 * not read at all: extracting it cost a round of single-job completions 3 % of the statement's time.
 */
function completeManySql(batched: boolean): string {
  const size = batched ? ', run_batch = coalesce(j.value ->> 4, run_batch)' : '';
  return `/* complete */ UPDATE ${T}
  SET status = 'completed', result = j.value ->> 2, started_at = coalesce(j.value ->> 3, started_at), finished_at = ?, updated_at = ?, lease_until = NULL${size}
  FROM json_each(?) AS j
  WHERE ${T}.id = j.value ->> 0 AND ${T}.attempts = j.value ->> 1 AND +${T}.locked_by = ? AND +${T}.status = 'running'`;
}

/**
 * After a completion that changed fewer rows than it had items: which of its items it completed. Its rows are the
 * batch's attempts now completed by this worker at the completion's own time; a row another connection changed in
 * the moment between the two statements (an operator's retry, a retention sweep) reads as not completed here. Each
 * row is found by primary key: the CROSS JOIN keeps the batch outside, and NOT INDEXED keeps SQLite off the finished
 * index, which statistics taken while it was empty made look free to walk in full for every item.
 */
export const COMPLETED_BY_SQL = `/* completed-by */ SELECT ${T}.id FROM json_each(?) AS j CROSS JOIN ${T} NOT INDEXED
  WHERE ${T}.id = j.value ->> 0 AND ${T}.attempts = j.value ->> 1 AND +${T}.locked_by = ? AND +${T}.status = 'completed'
    AND +${T}.finished_at = ?`;

/** The completion of single-job handlers' attempts (see completeManySql). */
export const COMPLETE_MANY_SQL = completeManySql(false);

/** The completion of a round that holds some batch handler's attempt: the same, and each run's batch size kept. */
export const COMPLETE_BATCHED_SQL = completeManySql(true);

/**
 * Completes attempts whose retention keeps nothing by deleting their rows: one write instead of the update and the
 * retention's later delete (0.73x the CPU per job, bench/notes/2026-12-06-finished-job-layouts.md). Fenced like the
 * update. A row something still reads once finished is left to the update (and to retention after it): a flow child
 * (its parent reads its result), a dependency (the end trigger resolves its dependents on the update; a delete of a
 * running row would fail them), a throttled job whose key window is still open (the window lives on the row), and
 * every job while some process waits for jobs to finish (its heartbeat is fresh): a waiter reads the finished row.
 */
export const COMPLETE_DELETE_SQL = `/* complete-delete */ DELETE FROM ${T}
  WHERE (id, attempts) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?) AS j)
    AND +locked_by = ? AND +status = 'running' AND parent_id IS NULL AND dependents IS NULL
    AND (key_until IS NULL OR key_until <= ?)
    AND NOT EXISTS (SELECT 1 FROM ${EVENT_READERS_TABLE} WHERE origin = '${FINISH_WAITERS_MARK}' AND seen_at >= ?)
  RETURNING id`;

/**
 * A failed attempt that runs again; its run is recorded (the completion above records none: the row is its own), with
 * the batch size the attempt carries, else the one an earlier write of the run stored.
 */
const RETRY_SQL = `UPDATE ${T}
  SET status = 'pending', error = ?, run_at = ?, updated_at = ?, started_at = coalesce(?, started_at),
      ${appendRunSql('?', "'retried'", 'coalesce(?, started_at)', 'coalesce(?, run_batch)')}, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/** A failed attempt that runs no more; its run is recorded as the retry's is. */
const FAIL_SQL = `UPDATE ${T}
  SET status = 'failed', error = ?, finished_at = ?, updated_at = ?, started_at = coalesce(?, started_at),
      ${appendRunSql('?', "'failed'", 'coalesce(?, started_at)', 'coalesce(?, run_batch)')}, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

const UPDATE_PROGRESS_SQL = `UPDATE ${T} SET progress = ?, updated_at = ?
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/**
 * The starts of attempts whose handlers got them, for those still running under this worker: one statement for every
 * such attempt of a write round. By id, like the completion (see there for the `+`). An attempt of a batch handler's
 * call carries the call's size as a fourth item: it is written with the start, or on its own when the start is already
 * recorded (the job waited in a partial batch longer than a round), so that a long call shows its size while it runs.
 * A row whose start and size are both recorded already is left alone: no write for nothing.
 */
const MARK_STARTED_SQL = `/* started */ UPDATE ${T}
  SET started_at = coalesce(${T}.started_at, j.value ->> 2), run_batch = coalesce(j.value ->> 3, ${T}.run_batch)
  FROM json_each(?) AS j
  WHERE ${T}.id = j.value ->> 0 AND ${T}.attempts = j.value ->> 1 AND +${T}.status = 'running' AND +${T}.locked_by = ?
    AND (${T}.started_at IS NULL OR (j.value ->> 3 IS NOT NULL AND ${T}.run_batch IS NOT j.value ->> 3))`;

/**
 * Completes attempts; the ids this worker still owned. Hot path. Those whose retention keeps nothing (`remove`) are
 * deleted where nothing reads their finished row (COMPLETE_DELETE_SQL); the rest are marked completed.
 */
export async function completeJobs(
  runner: StatementRunner,
  completions: Completion[],
  workerId: string,
  now: number,
): Promise<Set<string>> {
  const done = new Set<string>();
  let rest = completions;
  if (completions.some(({ remove }) => remove)) {
    const removable = JSON.stringify(completions.filter(({ remove }) => remove).map(({ ref }) => [Number(ref.id), ref.attempt]));
    const deleted = await runner.all(COMPLETE_DELETE_SQL, [removable, workerId, now, now - FINISH_WAITERS_TTL]);
    for (const row of deleted) done.add(String(row.id));
    rest = completions.filter(({ ref }) => !done.has(ref.id));
    if (rest.length === 0) return done;
  }
  // The batch size only where there is one: a single-job handler's items, and their statement, stay as they were.
  let batched = false;
  const items = JSON.stringify(
    rest.map(({ ref, result }) => {
      if (ref.batch === undefined) return [Number(ref.id), ref.attempt, result, ref.startedAt ?? null];
      batched = true;
      return [Number(ref.id), ref.attempt, result, ref.startedAt ?? null, ref.batch];
    }),
  );
  const changed = await runner.run(batched ? COMPLETE_BATCHED_SQL : COMPLETE_MANY_SQL, [now, now, items, workerId]);
  if (changed === rest.length) {
    for (const { ref } of rest) done.add(ref.id);
    return done;
  }
  // Some attempt was no longer ours (cancelled, or its lease expired and another worker took it): read which were.
  if (changed > 0) for (const row of await runner.all(COMPLETED_BY_SQL, [items, workerId, now])) done.add(String(row.id));
  return done;
}

/** Puts an attempt back to pending until `runAt`; false when no longer owned. */
export async function retryJob(
  runner: StatementRunner,
  ref: AttemptRef,
  workerId: string,
  error: string,
  runAt: number,
  now: number,
): Promise<boolean> {
  const started = ref.startedAt ?? null;
  const batch = ref.batch ?? null;
  return (await runner.run(RETRY_SQL, [error, runAt, now, started, started, now, batch, Number(ref.id), workerId, ref.attempt])) === 1;
}

/** Marks an attempt failed for good; false when no longer owned. */
export async function failJob(runner: StatementRunner, ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
  const started = ref.startedAt ?? null;
  const batch = ref.batch ?? null;
  return (await runner.run(FAIL_SQL, [error, now, now, started, started, now, batch, Number(ref.id), workerId, ref.attempt])) === 1;
}

/**
 * Records the starts of these attempts (their `startedAt`) where none is yet, and the batch size of those that carry
 * one where it is not recorded yet; how many rows took either.
 */
export async function markStarted(runner: StatementRunner, refs: AttemptRef[], workerId: string): Promise<number> {
  const started = refs.filter((ref) => ref.startedAt !== undefined);
  if (started.length === 0) return 0;
  const items = JSON.stringify(
    started.map((ref) =>
      ref.batch === undefined ? [Number(ref.id), ref.attempt, ref.startedAt] : [Number(ref.id), ref.attempt, ref.startedAt, ref.batch],
    ),
  );
  return runner.run(MARK_STARTED_SQL, [items, workerId]);
}

/** Stores the progress of a running attempt; false when no longer owned. */
export async function updateProgress(
  runner: StatementRunner,
  ref: AttemptRef,
  workerId: string,
  progress: string,
  now: number,
): Promise<boolean> {
  return (await runner.run(UPDATE_PROGRESS_SQL, [progress, now, Number(ref.id), workerId, ref.attempt])) === 1;
}
