import { ClaimRequest, JobRecord } from '../../queue-storage.interface';
import { claimedFieldsOf, claimedJobRecord } from '../../shared/job-row.mapper';
import { PostgresContext, ms, perSchema } from './postgres-sql-fragments';

/** What a worker needs of a job it claimed (read by `claimedFieldsOf` in job-row.mapper.ts): the claim returns no more. */
const CLAIMED_JOB_COLUMNS =
  'id, queue, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, name, remove_on';

/**
 * One statement that claims for several queues at once: one index walk per requested queue (a LATERAL join
 * over the requests), each with its own LIMIT and `FOR UPDATE SKIP LOCKED`, so a queue never takes more than
 * its free slots and processes on other machines claim the next rows instead of waiting for ours. The update
 * finds the picked rows by primary key (`= ANY (ARRAY(...))`): joined to the picked set instead, the planner
 * cannot know it is small and may hash-join it against the whole table.
 */
const claimSql = perSchema(
  ({ T, Q }) => `/* claim */ WITH picked AS (
        SELECT job.id FROM unnest($4::text[], $5::int[]) AS request(queue, lim)
        CROSS JOIN LATERAL (
          SELECT id FROM ${T}
          WHERE queue = request.queue AND status = 'pending' AND run_at <= $3
          ORDER BY priority DESC, run_at, id
          LIMIT request.lim
          FOR UPDATE SKIP LOCKED
        ) AS job
        WHERE NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = request.queue AND paused)
      )
      UPDATE ${T}
      SET status = 'running', attempts = attempts + 1, locked_by = $1, lease_until = $2, started_at = $3, updated_at = $3
      WHERE id = ANY (ARRAY(SELECT id FROM picked))
      RETURNING ${CLAIMED_JOB_COLUMNS}`,
);

/** Takes up to each request's limit of due pending jobs of unpaused queues for `workerId`, in one statement. Hot path. */
export async function claimJobs(
  db: PostgresContext,
  requests: ClaimRequest[],
  workerId: string,
  now: number,
  leaseDuration: number,
): Promise<JobRecord[]> {
  // On this node's clock, like every time the nodes compare (see Clocks in the README): PostgreSQL statements
  // do not wait for a file lock, and the database server's clock may differ from the nodes'.
  const leaseUntil = now + leaseDuration;
  const wanted = requests.filter((request) => request.limit > 0);
  if (wanted.length === 0) return [];
  const rows = await db.runner.all(claimSql(db.tables), [
    workerId,
    ms(leaseUntil),
    ms(now),
    wanted.map((request) => request.queue),
    wanted.map((request) => request.limit),
  ]);
  return rows.map((row) => claimedJobRecord(claimedFieldsOf(row), workerId, leaseUntil, now));
}
