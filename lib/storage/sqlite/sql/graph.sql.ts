import { NewGraphNode } from '../../queue-storage.interface';
import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/**
 * A whole graph in one statement, so it is atomic without a transaction. Ids are given explicitly after the highest
 * ever used (AUTOINCREMENT's own rule, as a flow's are), so a job can name the ids of the graph's earlier jobs: in the
 * payload's dependency lists a job of the graph is written as minus one more than its position, an existing job as
 * its id. SQLite reads the source into a temporary table before it inserts (the statement reads the table it writes),
 * so `base` is computed once; the insert trigger of step 17 then runs row by row, in order, and finds each
 * dependency of the graph already inserted.
 */
const INSERT_GRAPH_SQL = `/* graph */ INSERT INTO ${T}
  (id, queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, name, remove_on, job_group, trace_context,
   depends_on, on_dependency_failure, created_at, updated_at)
  SELECT base.id + j.key + 1, j.value ->> 0, 'pending', j.value ->> 1, j.value ->> 2, j.value ->> 3, 0, j.value ->> 4, j.value ->> 5,
    j.value ->> 6, j.value ->> 7, j.value ->> 8, j.value ->> 9, j.value ->> 10,
    CASE WHEN j.value ->> 11 IS NOT NULL THEN
      (SELECT json_group_array(CASE WHEN d.value < 0 THEN base.id - d.value ELSE d.value END) FROM json_each(j.value -> 11) AS d)
    END,
    j.value ->> 12, ?, ?
  FROM json_each(?) AS j,
    (SELECT max(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '${T}'), 0), COALESCE((SELECT max(id) FROM ${T}), 0)) AS id) AS base
  ORDER BY j.key
  RETURNING id`;

/** Inserts the jobs of a graph (each after the graph's jobs it depends on); their ids, in node order. */
export async function insertGraph(runner: StatementRunner, nodes: NewGraphNode[], now: number): Promise<string[]> {
  const payload = JSON.stringify(
    nodes.map(({ queue, job, refs }) => {
      const dependsOn = [...(job.dependsOn ?? []).map(Number), ...refs.map((position) => -(position + 1))];
      return [
        queue,
        job.data,
        job.priority,
        job.runAt,
        job.maxAttempts,
        job.backoff,
        job.timeout,
        job.name ?? null,
        job.removeOn ?? null,
        job.group ?? null,
        job.traceContext ?? null,
        dependsOn.length > 0 ? dependsOn : null,
        dependsOn.length > 0 ? (job.onDependencyFailure ?? 'fail') : null,
      ];
    }),
  );
  const rows = await runner.all(INSERT_GRAPH_SQL, [now, now, payload]);
  return rows
    .map((row) => Number(row.id))
    .sort((a, b) => a - b)
    .map(String);
}
