import { ChildRow, JobLinkRow, NewJobRecord } from '../../queue-storage.interface';
import { toJobLinks } from '../../shared/job-links';
import { InsertedRow } from '../../shared/pair-enqueued';
import { PostgresContext, compareIds, jobColumnArrays, ms, notifyIfAny, perSchema, toRowId } from './postgres-sql-fragments';

const sql = perSchema((tables) => {
  const { T, D } = tables;
  return {
    /**
     * Flags the live jobs of a list as dependencies before the check and the insert (which flags them too): a flagged
     * job's completion keeps its row even when its retention keeps nothing, so a dependency that completes between
     * the check and the insert is seen completed, not removed. Its own statement: the check after it reads what a
     * completion it waited for committed.
     */
    flag: `UPDATE ${T} SET dependents = 1 WHERE id = ANY($1::bigint[]) AND dependents IS NULL AND status IN ('pending', 'running')`,
    /** The ids of a list that name no job. */
    missing: `SELECT i AS id FROM unnest($1::bigint[]) AS i WHERE NOT EXISTS (SELECT 1 FROM ${T} WHERE id = i)`,
    /**
     * A batch of which some jobs name dependencies: the insert trigger of step 17 writes each dependent's edges, locks
     * and flags its dependencies and resolves what already ended, in this statement.
     */
    insert: `WITH inserted AS (
        INSERT INTO ${T} (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on,
          job_group, trace_context, depends_on, on_dependency_failure, created_at, updated_at)
        SELECT $1, 'pending', j.data, j.priority, j.run_at, 0, j.max_attempts, j.backoff, j.timeout_ms, NULL, j.name, j.remove_on,
          j.job_group, j.trace_context, j.depends_on, j.policy, $2, $2
        FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::double precision[], $9::text[],
          $10::int[], $11::text[], $12::text[], $13::text[], $14::text[]) WITH ORDINALITY AS j(data, priority, run_at, max_attempts, backoff,
          timeout_ms, name, remove_on, job_group, trace_context, depends_on, policy, ord)
        ORDER BY j.ord
        RETURNING id, run_at
      ),
      ${notifyIfAny(tables, 'inserted WHERE run_at <= $2')}
      SELECT id FROM inserted WHERE (SELECT count(*) FROM hint) >= 0`,
    /** Up to a limit of the jobs a job depends on, deleted ones too, with their total (the window runs before the LIMIT). */
    linkedDependencies: `SELECT d.depends_on::text AS id, x.queue, x.name, COALESCE(x.status, 'removed') AS status, count(*) OVER () AS total
      FROM ${D} AS d LEFT JOIN ${T} AS x ON x.id = d.depends_on WHERE d.job_id = $1 ORDER BY d.depends_on LIMIT $2`,
    /** Up to a limit of the jobs that depend on a job (a deleted dependent takes its edges with it), with their total. */
    linkedDependents: `SELECT x.id::text AS id, x.queue, x.name, x.status, count(*) OVER () AS total
      FROM ${D} AS d JOIN ${T} AS x ON x.id = d.job_id WHERE d.depends_on = $1 ORDER BY d.job_id LIMIT $2`,
    /** The dependencies of a job that still exist, with their results. */
    dependencies: `SELECT x.id, x.queue, x.status, x.result FROM ${D} AS d JOIN ${T} AS x ON x.id = d.depends_on
      WHERE d.job_id = $1 ORDER BY x.id`,
  };
});

/** The ids among `ids` that name no job. */
export async function missingJobs(db: PostgresContext, ids: string[]): Promise<string[]> {
  await db.runner.run(sql(db.tables).flag, [ids]);
  return (await db.runner.all(sql(db.tables).missing, [ids])).map((row) => String(row.id));
}

/** Inserts jobs of one queue, some with dependencies: the rows inserted, sorted by id (input order). */
export async function insertDependents(db: PostgresContext, queue: string, jobs: NewJobRecord[], now: number): Promise<InsertedRow[]> {
  const rows = await db.runner.all(sql(db.tables).insert, [
    queue,
    ms(now),
    ...jobColumnArrays(jobs),
    jobs.map((job) => (job.dependsOn ? JSON.stringify(job.dependsOn) : null)),
    jobs.map((job) => (job.dependsOn ? (job.onDependencyFailure ?? 'fail') : null)),
  ]);
  return rows.map((row) => ({ id: String(row.id), key: null })).sort((a, b) => compareIds(a.id, b.id));
}

/** The jobs `id` depends on that still exist, oldest first. */
export async function dependenciesOf(db: PostgresContext, id: string): Promise<ChildRow[]> {
  const rowId = toRowId(id);
  if (rowId === null) return [];
  return (await db.runner.all(sql(db.tables).dependencies, [rowId])).map((row) => ({
    id: String(row.id),
    queue: String(row.queue),
    status: row.status as ChildRow['status'],
    result: (row.result as string | null) ?? null,
  }));
}

/** Up to `limit` of the jobs `id` depends on, oldest first, and how many there are. */
export async function linkedDependencies(db: PostgresContext, id: string, limit: number): Promise<{ rows: JobLinkRow[]; total: number }> {
  const rowId = toRowId(id);
  return rowId === null ? { rows: [], total: 0 } : toJobLinks(await db.runner.all(sql(db.tables).linkedDependencies, [rowId, limit]));
}

/** Up to `limit` of the jobs that depend on `id`, oldest first, and how many there are. */
export async function linkedDependents(db: PostgresContext, id: string, limit: number): Promise<{ rows: JobLinkRow[]; total: number }> {
  const rowId = toRowId(id);
  return rowId === null ? { rows: [], total: 0 } : toJobLinks(await db.runner.all(sql(db.tables).linkedDependents, [rowId, limit]));
}
