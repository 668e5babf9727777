import { CancelledDescendant, ChildRow, FlowRecord, NewFlowNode, RemoveTreeOutcome } from '../../queue-storage.interface';
import { PostgresContext, jobColumnArrays, ms, notifyFinished, notifyIfAny, perSchema, toRowId } from './postgres-sql-fragments';

const sql = perSchema((tables) => {
  const { T } = tables;
  const descendants = `WITH RECURSIVE tree(id) AS (
      SELECT id FROM ${T} WHERE parent_id = $1
      UNION ALL SELECT c.id FROM ${T} AS c JOIN tree ON c.parent_id = tree.id)`;
  return {
    /**
     * A whole flow in one statement: each node draws its id from the table's identity sequence first, so a child
     * can name its parent's id in the same statement. Notifies when a node is due.
     */
    insertFlow: `WITH node AS MATERIALIZED (
        SELECT j.*, nextval(pg_get_serial_sequence('${T}', 'id')) AS id
        FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::double precision[], $9::int[], $10::text[],
            $11::text[], $12::int[], $13::text[], $14::text[])
          WITH ORDINALITY AS j(queue, data, priority, run_at, max_attempts, backoff, timeout_ms, parent_ord, on_child_failure, name, remove_on,
            job_group, trace_context, ord)
      ),
      inserted AS (
        INSERT INTO ${T} (id, queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, parent_id, on_child_failure, name, remove_on,
          job_group, trace_context, created_at, updated_at)
        OVERRIDING SYSTEM VALUE
        SELECT n.id, n.queue, 'pending', n.data, n.priority, n.run_at, 0, n.max_attempts, n.backoff, n.timeout_ms, p.id, n.on_child_failure,
          n.name, n.remove_on, n.job_group, n.trace_context, $1, $1
        FROM node AS n LEFT JOIN node AS p ON p.ord = n.parent_ord + 1
        RETURNING run_at
      ),
      ${notifyIfAny(tables, 'inserted WHERE run_at <= $1')}
      SELECT id FROM node WHERE (SELECT count(*) FROM hint) >= 0 AND (SELECT count(*) FROM inserted) >= 0 ORDER BY ord`,

    flowOf: `SELECT j.parent_id, j.on_child_failure,
        (SELECT coalesce(json_agg(json_build_array(c.id::text, c.status) ORDER BY c.id), '[]'::json)::text
         FROM ${T} AS c WHERE c.parent_id = j.id) AS children
      FROM ${T} AS j WHERE j.id = $1`,

    children: `SELECT id, queue, status, result FROM ${T} WHERE parent_id = $1 ORDER BY id`,

    // Keeps locked_by (like a single cancel) so a running job's owner finds out at its next heartbeat; returns every
    // row it cancelled, locked_by telling a running one from a pending one.
    cancelDescendants: `${descendants},
      cancelled AS (
        UPDATE ${T} SET status = 'cancelled', finished_at = $2, updated_at = $2, lease_until = NULL
        WHERE id IN (SELECT id FROM tree) AND status IN ('pending', 'running')
        RETURNING id, queue, attempts, locked_by
      ),
      ${notifyFinished(tables, 'cancelled', '$2')}
      SELECT * FROM cancelled WHERE (SELECT count(*) FROM done) >= 0 ORDER BY id`,

    // Locks the whole tree first and decides on what it locked: a claim that committed meanwhile is seen (the lock
    // waits for it and re-reads the row), a later one skips the locked rows. Deepest rows first, the order in
    // which a finishing child's trigger locks its parent: a child's outcome write never deadlocks with this.
    removeTree: `WITH RECURSIVE tree(id, depth) AS (
        SELECT id, 0 FROM ${T} WHERE id = $1
        UNION ALL SELECT c.id, tree.depth + 1 FROM ${T} AS c JOIN tree ON c.parent_id = tree.id
      ),
      target AS MATERIALIZED (
        SELECT t.id, t.status, tree.depth FROM ${T} AS t JOIN tree ON tree.id = t.id ORDER BY tree.depth DESC, t.id FOR UPDATE OF t
      ),
      removed AS (
        DELETE FROM ${T} AS t USING target
        WHERE t.id = target.id AND NOT EXISTS (SELECT 1 FROM target WHERE status = 'running')
        RETURNING t.id
      )
      SELECT id, status, depth, (SELECT count(*) FROM removed) AS removed FROM target ORDER BY depth, id`,
  };
});

/** Inserts the nodes of a flow (parents before their children); their ids, in node order. */
export async function insertFlow(db: PostgresContext, nodes: NewFlowNode[], now: number): Promise<string[]> {
  const rows = await db.runner.all(sql(db.tables).insertFlow, [
    ms(now),
    nodes.map((node) => node.queue),
    ...jobColumnArrays(
      nodes.map((node) => node.job),
      [nodes.map((node) => node.parentIndex), nodes.map((node) => node.onChildFailure)],
    ),
  ]);
  return rows.map((row) => String(row.id));
}

/** A job's place in a flow, or null when there is no such job. */
export async function flowOf(db: PostgresContext, id: string): Promise<FlowRecord | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await db.runner.all(sql(db.tables).flowOf, [rowId]);
  if (!row) return null;
  const children = (JSON.parse(String(row.children)) as [string, string][]).map(([childId, status]) => ({ id: childId, status }));
  return {
    parentId: row.parent_id === null || row.parent_id === undefined ? null : String(row.parent_id),
    onChildFailure: (row.on_child_failure as FlowRecord['onChildFailure']) ?? null,
    children: children as FlowRecord['children'],
  };
}

/** The children of a job with their status and result. */
export async function childrenOf(db: PostgresContext, id: string): Promise<ChildRow[]> {
  const rowId = toRowId(id);
  if (rowId === null) return [];
  return (await db.runner.all(sql(db.tables).children, [rowId])).map((row) => ({
    id: String(row.id),
    queue: String(row.queue),
    status: row.status as ChildRow['status'],
    result: (row.result as string | null) ?? null,
  }));
}

/** Cancels every live descendant; each of them, with its queue, its attempt and whether it was running, by id. */
export async function cancelDescendants(db: PostgresContext, id: string, now: number): Promise<CancelledDescendant[]> {
  const rowId = toRowId(id);
  if (rowId === null) return [];
  const rows = await db.runner.all(sql(db.tables).cancelDescendants, [rowId, ms(now)]);
  return rows.map((row) => ({
    id: String(row.id),
    queue: String(row.queue),
    attempt: Number(row.attempts),
    running: row.locked_by !== null,
  }));
}

/**
 * Deletes a job and all its descendants unless one of them runs: how many rows went, the running one (the job
 * itself first, then the nearest), or null when there is no such job.
 */
export async function removeTree(db: PostgresContext, id: string): Promise<RemoveTreeOutcome | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const rows = await db.runner.all(sql(db.tables).removeTree, [rowId]);
  if (rows.length === 0) return null;
  const running = rows.find((row) => row.status === 'running');
  return running ? { running: String(running.id) } : { removed: Number(rows[0].removed) };
}
