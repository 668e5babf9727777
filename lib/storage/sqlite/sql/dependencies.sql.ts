import { DEPENDENCIES_TABLE } from '../../../table-names.constants';
import { toJobLinks } from '../../shared/job-links';
import { ChildRow, JobLinkRow, NewJobRecord } from '../../queue-storage.interface';
import { InsertedRow } from '../../shared/pair-enqueued';
import { StatementRunner } from '../../shared/statement-runner';
import { T, newJobValues, toRowId } from './sqlite-sql-fragments';

const D = DEPENDENCIES_TABLE;

/** The ids of a list that name no job. */
/**
 * Flags the live jobs of a list as dependencies before the check and the insert (which flags them too): a flagged
 * job's completion keeps its row even when its retention keeps nothing, so a dependency that completes between the
 * check and the insert is seen completed, not removed.
 */
const FLAG_DEPENDENCIES_SQL = `UPDATE ${T} SET dependents = 1
  WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) AND dependents IS NULL AND status IN ('pending', 'running')`;

const MISSING_SQL = `SELECT j.value AS id FROM json_each(?) AS j WHERE NOT EXISTS (SELECT 1 FROM ${T} WHERE id = CAST(j.value AS INTEGER))`;

/**
 * A batch of which some jobs name dependencies, from one JSON parameter: the insert trigger of step 17 writes each
 * dependent's edges, flags its dependencies and resolves what already ended, in this statement.
 */
const INSERT_DEPENDENTS_SQL = `/* enqueue */ INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, job_group,
   trace_context, depends_on, on_dependency_failure, created_at, updated_at)
  SELECT ?, 'pending', j.value ->> 0, j.value ->> 1, j.value ->> 2, 0, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6,
    j.value ->> 7, j.value ->> 8, j.value ->> 9, j.value ->> 10, j.value ->> 11, j.value ->> 12, ?, ?
  FROM json_each(?) AS j WHERE true ORDER BY j.key
  RETURNING id`;

/** The dependencies of a job that still exist, with their results. */
const DEPENDENCIES_SQL = `SELECT x.id AS id, x.queue AS queue, x.status AS status, x.result AS result
  FROM ${D} AS d JOIN ${T} AS x ON x.id = d.depends_on WHERE d.job_id = ? ORDER BY x.id`;

/** Up to a limit of the jobs a job depends on, deleted ones too, with their total (the window runs before the LIMIT). */
const LINKED_DEPENDENCIES_SQL = `SELECT d.depends_on AS id, x.queue AS queue, x.name AS name, COALESCE(x.status, 'removed') AS status,
    count(*) OVER () AS total
  FROM ${D} AS d LEFT JOIN ${T} AS x ON x.id = d.depends_on WHERE d.job_id = ? ORDER BY d.depends_on LIMIT ?`;

/** Up to a limit of the jobs that depend on a job (a deleted dependent takes its edges with it), with their total. */
const LINKED_DEPENDENTS_SQL = `SELECT x.id AS id, x.queue AS queue, x.name AS name, x.status AS status, count(*) OVER () AS total
  FROM ${D} AS d JOIN ${T} AS x ON x.id = d.job_id WHERE d.depends_on = ? ORDER BY d.job_id LIMIT ?`;

/** The ids among `ids` that name no job. */
export async function missingJobs(runner: StatementRunner, ids: string[]): Promise<string[]> {
  const list = JSON.stringify(ids);
  await runner.run(FLAG_DEPENDENCIES_SQL, [list]);
  return (await runner.all(MISSING_SQL, [list])).map((row) => String(row.id));
}

/** Inserts jobs of one queue, some with dependencies: the rows inserted, sorted by id (input order). */
export async function insertDependents(runner: StatementRunner, queue: string, jobs: NewJobRecord[], now: number): Promise<InsertedRow[]> {
  const payload = JSON.stringify(
    jobs.map((job) => [
      ...newJobValues(job),
      job.group ?? null,
      job.traceContext ?? null,
      job.dependsOn ? JSON.stringify(job.dependsOn) : null,
      job.dependsOn ? (job.onDependencyFailure ?? 'fail') : null,
    ]),
  );
  const rows = await runner.all(INSERT_DEPENDENTS_SQL, [queue, now, now, payload]);
  return rows
    .map((row) => Number(row.id))
    .sort((a, b) => a - b)
    .map((id) => ({ id: String(id), key: null }));
}

/** The jobs `id` depends on that still exist, oldest first. */
export async function dependenciesOf(runner: StatementRunner, id: string): Promise<ChildRow[]> {
  const rowId = toRowId(id);
  if (rowId === null) return [];
  return (await runner.all(DEPENDENCIES_SQL, [rowId])).map((row) => ({
    id: String(row.id),
    queue: String(row.queue),
    status: row.status as ChildRow['status'],
    result: (row.result as string | null) ?? null,
  }));
}

/** Up to `limit` of the jobs `id` depends on, oldest first, and how many there are. */
export async function linkedDependencies(
  runner: StatementRunner,
  id: string,
  limit: number,
): Promise<{ rows: JobLinkRow[]; total: number }> {
  const rowId = toRowId(id);
  return rowId === null ? { rows: [], total: 0 } : toJobLinks(await runner.all(LINKED_DEPENDENCIES_SQL, [rowId, limit]));
}

/** Up to `limit` of the jobs that depend on `id`, oldest first, and how many there are. */
export async function linkedDependents(runner: StatementRunner, id: string, limit: number): Promise<{ rows: JobLinkRow[]; total: number }> {
  const rowId = toRowId(id);
  return rowId === null ? { rows: [], total: 0 } : toJobLinks(await runner.all(LINKED_DEPENDENTS_SQL, [rowId, limit]));
}
