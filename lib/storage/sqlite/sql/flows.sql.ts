import { CancelledDescendant, ChildRow, FlowRecord, NewFlowNode, RemoveTreeOutcome } from '../../queue-storage.interface';
import { StatementRunner } from '../../shared/statement-runner';
import { T, toRowId } from './sqlite-sql-fragments';

/**
 * A whole flow in one statement, so it is atomic without a transaction (the module's connection never holds one
 * open: see docs/flows-and-transactions.md). Ids are given explicitly, after the highest ever used (AUTOINCREMENT's own rule), so a
 * child can name its parent's id in the same statement. SQLite reads the source into a temporary table before it
 * inserts (the statement reads the table it writes), so `base` is computed once.
 */
const INSERT_FLOW_SQL = `/* flow */ INSERT INTO ${T}
  (id, queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, parent_id, on_child_failure, name, remove_on,
   job_group, trace_context, created_at, updated_at)
  SELECT base.id + j.key + 1, j.value ->> 0, 'pending', j.value ->> 1, j.value ->> 2, j.value ->> 3, 0, j.value ->> 4, j.value ->> 5,
    j.value ->> 6, CASE WHEN (j.value ->> 7) >= 0 THEN base.id + (j.value ->> 7) + 1 END, j.value ->> 8, j.value ->> 9, j.value ->> 10,
    j.value ->> 11, j.value ->> 12, ?, ?
  FROM json_each(?) AS j,
    (SELECT max(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '${T}'), 0), COALESCE((SELECT max(id) FROM ${T}), 0)) AS id) AS base
  ORDER BY j.key
  RETURNING id`;

const FLOW_OF_SQL = `SELECT j.parent_id AS parent_id, j.on_child_failure AS on_child_failure,
    (SELECT json_group_array(json_array(c.id, c.status)) FROM (SELECT id, status FROM ${T} WHERE parent_id = j.id ORDER BY id) AS c) AS children
  FROM ${T} AS j WHERE j.id = ?`;

const CHILDREN_SQL = `SELECT id, queue, status, result FROM ${T} WHERE parent_id = ? ORDER BY id`;

/** Every descendant of a job, through the children index. */
const DESCENDANTS = `WITH RECURSIVE tree(id) AS (
    SELECT id FROM ${T} WHERE parent_id = ?
    UNION ALL SELECT c.id FROM ${T} AS c JOIN tree ON c.parent_id = tree.id)`;

/**
 * Keeps locked_by (like a single cancel) so a running job's owner finds out at its next heartbeat; returns every row
 * it cancelled, locked_by telling a running one from a pending one (RETURNING sees only the new values).
 */
const CANCEL_DESCENDANTS_SQL = `/* cancel */ ${DESCENDANTS}
  UPDATE ${T} SET status = 'cancelled', finished_at = ?, updated_at = ?, lease_until = NULL
  WHERE id IN (SELECT id FROM tree) AND status IN ('pending', 'running')
  RETURNING id, queue, attempts, locked_by`;

/** A job and every descendant, with its depth below the job. */
const TREE = `WITH RECURSIVE tree(id, depth) AS (
    SELECT id, 0 FROM ${T} WHERE id = ?
    UNION ALL SELECT c.id, tree.depth + 1 FROM ${T} AS c JOIN tree ON c.parent_id = tree.id)`;

/**
 * Deletes a job with all its descendants, or nothing when one of them runs: the check and the deletes are one
 * statement, so no claim (of another process either: it waits for SQLite's write lock) falls between them. The
 * uncorrelated NOT EXISTS is evaluated once, before the first row goes.
 */
const REMOVE_TREE_SQL = `/* remove tree */ ${TREE}
  DELETE FROM ${T} WHERE id IN (SELECT id FROM tree)
    AND NOT EXISTS (SELECT 1 FROM ${T} WHERE id IN (SELECT id FROM tree) AND status = 'running')
  RETURNING id`;

/** Why nothing was deleted: whether the job exists, and the running member of its tree nearest to it. */
const TREE_BLOCKER_SQL = `${TREE}
  SELECT (SELECT count(*) FROM tree) AS found,
    (SELECT j.id FROM ${T} AS j JOIN tree ON tree.id = j.id WHERE j.status = 'running' ORDER BY tree.depth, j.id LIMIT 1) AS running`;

/** Inserts the nodes of a flow (parents before their children); their ids, in node order. */
export async function insertFlow(runner: StatementRunner, nodes: NewFlowNode[], now: number): Promise<string[]> {
  const payload = JSON.stringify(
    nodes.map(({ queue, job, parentIndex, onChildFailure }) => [
      queue,
      job.data,
      job.priority,
      job.runAt,
      job.maxAttempts,
      job.backoff,
      job.timeout,
      parentIndex,
      onChildFailure,
      job.name ?? null,
      job.removeOn ?? null,
      job.group ?? null,
      job.traceContext ?? null,
    ]),
  );
  const rows = await runner.all(INSERT_FLOW_SQL, [now, now, payload]);
  return rows
    .map((row) => Number(row.id))
    .sort((a, b) => a - b)
    .map(String);
}

/** A job's place in a flow, or null when there is no such job. */
export async function flowOf(runner: StatementRunner, id: string): Promise<FlowRecord | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await runner.all(FLOW_OF_SQL, [rowId]);
  if (!row) return null;
  const children = (JSON.parse(String(row.children)) as [number, string][]).map(([childId, status]) => ({ id: String(childId), status }));
  return {
    parentId: row.parent_id === null || row.parent_id === undefined ? null : String(row.parent_id),
    onChildFailure: (row.on_child_failure as FlowRecord['onChildFailure']) ?? null,
    children: children as FlowRecord['children'],
  };
}

/** The children of a job with their status and result. */
export async function childrenOf(runner: StatementRunner, id: string): Promise<ChildRow[]> {
  const rowId = toRowId(id);
  if (rowId === null) return [];
  return (await runner.all(CHILDREN_SQL, [rowId])).map((row) => ({
    id: String(row.id),
    queue: String(row.queue),
    status: row.status as ChildRow['status'],
    result: (row.result as string | null) ?? null,
  }));
}

/** Cancels every live descendant; each of them, with its queue, its attempt and whether it was running, by id. */
export async function cancelDescendants(runner: StatementRunner, id: string, now: number): Promise<CancelledDescendant[]> {
  const rowId = toRowId(id);
  if (rowId === null) return [];
  const rows = await runner.all(CANCEL_DESCENDANTS_SQL, [rowId, now, now]);
  return rows
    .map((row) => ({ id: String(row.id), queue: String(row.queue), attempt: Number(row.attempts), running: row.locked_by !== null }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Deletes a job and all its descendants unless one of them runs: how many rows went, the running one (the job
 * itself first, then the nearest), or null when there is no such job.
 */
export async function removeTree(runner: StatementRunner, id: string): Promise<RemoveTreeOutcome | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  // The delete decides; the read after a refusal only explains it. A tree whose running job finished in between
  // is not reported as refused: the delete is tried again.
  for (;;) {
    const removed = await runner.all(REMOVE_TREE_SQL, [rowId]);
    if (removed.length > 0) return { removed: removed.length };
    const [why] = await runner.all(TREE_BLOCKER_SQL, [rowId]);
    if (!why || Number(why.found) === 0) return null;
    if (why.running !== null && why.running !== undefined) return { running: String(why.running) };
  }
}
