import { CountRow, GROUP_PENDING_COUNT_CAP, GroupLoad, JobRecord, ListJobsQuery } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toCountRow, toJobRecord } from '../../shared/job-row.mapper';
import { PostgresContext, perSchema } from './postgres-sql-fragments';

/** Of a group's running rows, those claimed ahead (see CountRow): the small running index, then each running row. */
const claimedOfGroup = (T: string, nameFilter: string) => `SELECT queue, 'claimed' AS status, count(*) AS count FROM ${T}
      WHERE status = 'running' AND started_at IS NULL AND queue = $1 AND job_group = $2 ${nameFilter} GROUP BY queue`;

const sql = perSchema(({ T }) => ({
  /** A group's counts by status, through the `_groups` index (queue, job_group, status). */
  groupCounts: `SELECT queue, status, count(*) AS count FROM ${T} WHERE queue = $1 AND job_group = $2 GROUP BY queue, status
    UNION ALL ${claimedOfGroup(T, '')}`,
  /** One name's jobs of a group, by status: the same walk of `_groups`, each entry's row read for its name. */
  groupNameCounts: `SELECT queue, status, count(*) AS count FROM ${T}
      WHERE queue = $1 AND job_group = $2 AND name = $3 GROUP BY queue, status
    UNION ALL ${claimedOfGroup(T, 'AND name = $3')}`,
  /** Jobs of one group, newest first; a null status or name filters nothing. */
  listGroupJobs: `SELECT ${JOB_COLUMNS} FROM ${T}
      WHERE queue = $1 AND job_group = $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR name = $4)
      ORDER BY id DESC LIMIT $5 OFFSET $6`,
  /** Groups by running jobs (the small `_running` index), each with its pending jobs counted up to the cap. */
  busiestGroups: `SELECT busy.g AS grp, busy.n AS running,
      (SELECT count(*) FROM (SELECT 1 FROM ${T} WHERE queue = $1 AND job_group = busy.g AND status = 'pending'
        LIMIT ${GROUP_PENDING_COUNT_CAP}) AS p) AS pending
    FROM (SELECT job_group AS g, count(*) AS n FROM ${T} WHERE status = 'running' AND queue = $1 AND job_group IS NOT NULL
      GROUP BY job_group) AS busy
    ORDER BY busy.n DESC, busy.g LIMIT $2`,
}));

/** Job counts of one group, per status; of one name within it when `name` is given. */
export async function groupCounts(db: PostgresContext, queue: string, group: string, name?: string): Promise<CountRow[]> {
  const statements = sql(db.tables);
  const rows =
    name === undefined
      ? await db.runner.all(statements.groupCounts, [queue, group])
      : await db.runner.all(statements.groupNameCounts, [queue, group, name]);
  return rows.map(toCountRow);
}

/** Jobs of one group, newest first. */
export async function listGroupJobs(db: PostgresContext, queue: string, group: string, query: ListJobsQuery): Promise<JobRecord[]> {
  const { status, name, limit, offset } = query;
  const rows = await db.runner.all(sql(db.tables).listGroupJobs, [queue, group, status ?? null, name ?? null, limit, offset]);
  return rows.map(toJobRecord);
}

/** The groups with the most running jobs. */
export async function busiestGroups(db: PostgresContext, queue: string, limit: number): Promise<GroupLoad[]> {
  const rows = await db.runner.all(sql(db.tables).busiestGroups, [queue, limit]);
  return rows.map((row) => ({ group: String(row.grp), running: Number(row.running), pending: Number(row.pending) }));
}
