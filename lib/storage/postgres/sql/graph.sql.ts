import { NewGraphNode } from '../../queue-storage.interface';
import { PostgresContext, jobColumnArrays, ms, notifyIfAny, perSchema } from './postgres-sql-fragments';

const sql = perSchema((tables) => {
  const { T } = tables;
  return {
    /**
     * A whole graph in one statement: each job draws its id from the table's identity sequence first, so a job can name
     * the ids of the graph's other jobs in the same statement (in the dependency lists given, a job of the graph is
     * written as minus its 1-based position, an existing job as its id). The insert trigger of step 17 runs for each
     * dependent after the statement's rows are all in. Notifies when a job is due.
     */
    insertGraph: `WITH node AS MATERIALIZED (
        SELECT j.*, nextval(pg_get_serial_sequence('${T}', 'id')) AS id
        FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::double precision[], $9::text[],
            $10::int[], $11::text[], $12::text[], $13::text[], $14::text[])
          WITH ORDINALITY AS j(queue, data, priority, run_at, max_attempts, backoff, timeout_ms, name, remove_on, job_group, trace_context,
            depends_on, policy, ord)
      ),
      inserted AS (
        INSERT INTO ${T} (id, queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, name, remove_on, job_group,
          trace_context, depends_on, on_dependency_failure, created_at, updated_at)
        OVERRIDING SYSTEM VALUE
        SELECT n.id, n.queue, 'pending', n.data, n.priority, n.run_at, 0, n.max_attempts, n.backoff, n.timeout_ms, n.name, n.remove_on,
          n.job_group, n.trace_context,
          CASE WHEN n.depends_on IS NOT NULL THEN
            (SELECT json_agg(CASE WHEN d::bigint < 0 THEN (SELECT m.id FROM node AS m WHERE m.ord = -d::bigint) ELSE d::bigint END)::text
             FROM json_array_elements_text(n.depends_on::json) AS d)
          END,
          n.policy, $1, $1
        FROM node AS n ORDER BY n.ord
        RETURNING run_at
      ),
      ${notifyIfAny(tables, 'inserted WHERE run_at <= $1')}
      SELECT id FROM node WHERE (SELECT count(*) FROM hint) >= 0 AND (SELECT count(*) FROM inserted) >= 0 ORDER BY ord`,
  };
});

/** Inserts the jobs of a graph (each after the graph's jobs it depends on); their ids, in node order. */
export async function insertGraph(db: PostgresContext, nodes: NewGraphNode[], now: number): Promise<string[]> {
  const dependsOn = nodes.map(({ job, refs }) => [...(job.dependsOn ?? []), ...refs.map((position) => String(-(position + 1)))]);
  const rows = await db.runner.all(sql(db.tables).insertGraph, [
    ms(now),
    nodes.map((node) => node.queue),
    ...jobColumnArrays(nodes.map((node) => node.job)),
    dependsOn.map((list) => (list.length > 0 ? JSON.stringify(list) : null)),
    nodes.map((node, index) => (dependsOn[index].length > 0 ? (node.job.onDependencyFailure ?? 'fail') : null)),
  ]);
  return rows.map((row) => String(row.id));
}
