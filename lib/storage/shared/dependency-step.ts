import { FLOW_WAIT_OFFSET } from './flow-wait';

/** The `name` of the error a dependent records when a dependency did not complete (= DependencyFailedError.name). */
export const DEPENDENCY_FAILED_ERROR_NAME = 'DependencyFailedError';

const W = FLOW_WAIT_OFFSET;

/** The pieces of SQL one backend's dependency statements are written with. */
export interface DependencySqlParts {
  /** The jobs table and the dependencies table, as the backend names them. */
  T: string;
  D: string;
  /** The expressions of the dependency that ended: its id, its end ('completed', 'failed', 'cancelled', 'removed'), the time. */
  depId: string;
  depStatus: string;
  at: string;
  jsonObject: 'json_object' | 'json_build_object';
  /** `max` (SQLite) or `greatest` (PostgreSQL). */
  greatest: 'max' | 'greatest';
  /** What turns the JSON object into the error column's text: '' (SQLite) or '::text' (PostgreSQL). */
  asText: '' | '::text';
}

/**
 * The dependents an end fails: those waiting with policy 'fail' on the dependency that did not complete, and theirs,
 * transitively. The walk keeps ids only, so UNION reaches each job once and the walk costs one step per edge: kept
 * with the job each was reached from, a job with k failed dependencies would be walked on from k times, and a dense
 * graph (every job waiting for all the jobs before it) made the one statement that ends the first job run for close
 * to a minute at 700 jobs, holding the writer. The graph has no cycle (a job can only depend on jobs that exist before
 * it), so the walk ends. A loop inside one statement, not nested trigger calls: its depth is bounded by the graph only.
 */
function doomed({ T, D, depId, depStatus }: DependencySqlParts): string {
  return `WITH RECURSIVE doomed(id) AS (
      SELECT d.job_id FROM ${D} AS d JOIN ${T} AS j ON j.id = d.job_id
      WHERE d.depends_on = ${depId} AND ${depStatus} <> 'completed' AND j.status = 'pending' AND j.run_at >= ${W}
        AND j.on_dependency_failure = 'fail'
      UNION
      SELECT d.job_id FROM doomed JOIN ${D} AS d ON d.depends_on = doomed.id JOIN ${T} AS j ON j.id = d.job_id
      WHERE j.status = 'pending' AND j.run_at >= ${W} AND j.on_dependency_failure = 'fail')`;
}

/**
 * The two statements that resolve the dependents of a dependency that ended (or was deleted while live), in this
 * order: release every waiting dependent of it, or of one it fails, that nothing live holds back any more (the ones
 * it fails count as ended, and are not released), then fail those it fails. The release runs first, while the failed
 * ones still wait, so both statements compute the same set.
 */
export function dependencyStepSql(parts: DependencySqlParts): [release: string, fail: string] {
  const { T, D, depId, depStatus, at, jsonObject, greatest, asText } = parts;
  const release = `UPDATE ${T} SET run_at = ${greatest}(run_at - ${W}, ${at}), updated_at = ${at}
     WHERE id IN (${doomed(parts)}
       SELECT d.job_id FROM ${D} AS d
       WHERE (d.depends_on = ${depId} OR d.depends_on IN (SELECT id FROM doomed)) AND d.job_id NOT IN (SELECT id FROM doomed)
         AND NOT EXISTS (SELECT 1 FROM ${D} AS o JOIN ${T} AS x ON x.id = o.depends_on
           WHERE o.job_id = d.job_id AND x.status IN ('pending', 'running') AND x.id NOT IN (SELECT id FROM doomed)))
       AND status = 'pending' AND run_at >= ${W} AND on_dependency_failure IS NOT NULL`;
  const fail = `UPDATE ${T} SET status = 'failed',
       error = ${dependencyFailedErrorOf(jsonObject, 'f.via', `CASE WHEN f.via = ${depId} THEN ${depStatus} ELSE 'failed' END`)}${asText},
       finished_at = ${at}, updated_at = ${at}
     FROM (${doomed(parts)} SELECT doomed.id, (SELECT min(e.depends_on) FROM ${D} AS e WHERE e.job_id = doomed.id
         AND (e.depends_on = ${depId} OR e.depends_on IN (SELECT id FROM doomed))) AS via FROM doomed) AS f
     WHERE ${T}.id = f.id AND ${T}.status = 'pending'`;
  return [release, fail];
}

/** The recorded error (a JSON object) of a dependent failed by the dependency `id` that ended `status`. */
export function dependencyFailedErrorOf(jsonObject: 'json_object' | 'json_build_object', id: string, status: string): string {
  return `${jsonObject}(
        'name', '${DEPENDENCY_FAILED_ERROR_NAME}',
        'message', 'Dependency job ' || ${id} || ' ended ' || ${status} || ' before this job could run',
        'attempt', attempts)`;
}

/** The pieces of SQL the statements run when a dependent is inserted are written with (`job` is its row alias, NEW). */
export interface DependentAddParts {
  T: string;
  D: string;
  job: string;
  jsonObject: 'json_object' | 'json_build_object';
  asText: '' | '::text';
}

/**
 * What the insert of a dependent resolves at once, after its edges are written and its dependencies flagged: it fails
 * (policy 'fail') when a dependency already ended other than completed or is gone, else it waits (its run_at pushed
 * by the wait offset, as a flow parent's) while one of them is live; when all ended it is an ordinary pending job.
 */
export function dependentAddSql({ T, D, job, jsonObject, asText }: DependentAddParts): [fail: string, wait: string] {
  const fail = `UPDATE ${T} SET status = 'failed', error = ${dependencyFailedErrorOf(jsonObject, 'bad.id', 'bad.status')}${asText},
       finished_at = ${job}.created_at, updated_at = ${job}.created_at
     FROM (SELECT d.depends_on AS id, COALESCE(x.status, 'removed') AS status FROM ${D} AS d LEFT JOIN ${T} AS x ON x.id = d.depends_on
       WHERE d.job_id = ${job}.id AND (x.id IS NULL OR x.status IN ('failed', 'cancelled')) ORDER BY d.depends_on LIMIT 1) AS bad
     WHERE ${T}.id = ${job}.id AND ${T}.on_dependency_failure = 'fail'`;
  const wait = `UPDATE ${T} SET run_at = run_at + ${W} WHERE id = ${job}.id AND status = 'pending' AND run_at < ${W}
       AND EXISTS (SELECT 1 FROM ${D} AS d JOIN ${T} AS x ON x.id = d.depends_on WHERE d.job_id = ${job}.id AND x.status IN ('pending', 'running'))`;
  return [fail, wait];
}
