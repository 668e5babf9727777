import { CountRow, GROUP_PENDING_COUNT_CAP, GroupLoad, JobRecord, ListJobsQuery } from '../../queue-storage.interface';
import { toCountRow, toJobRecord } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { T, pageOfIds } from './sqlite-sql-fragments';

/** Of a group's running rows, those claimed ahead (see CountRow): the running index, then each running row. */
const claimedOfGroup = (nameFilter: string) => `SELECT queue, 'claimed' AS status, count(*) AS count FROM ${T}
  WHERE status = 'running' AND started_at IS NULL AND queue = ? AND job_group = ? ${nameFilter} GROUP BY queue`;

/** A group's counts by status, from the `_groups` index alone (queue, job_group, status). */
const GROUP_COUNTS_SQL = `SELECT queue, status, count(*) AS count FROM ${T} WHERE queue = ? AND job_group = ? GROUP BY queue, status
  UNION ALL ${claimedOfGroup('')}`;

/** One name's jobs of a group, by status: the same walk of `_groups`, each entry's row read for its name. */
const GROUP_NAME_COUNTS_SQL = `SELECT queue, status, count(*) AS count FROM ${T}
  WHERE queue = ? AND job_group = ? AND name = ? GROUP BY queue, status
  UNION ALL ${claimedOfGroup('AND name = ?')}`;

/**
 * `statusFilter` is empty or `AND status = ?`, `nameFilter` empty or `AND name = ?`: the `_groups` index finds the
 * rows, its ids are sorted and only the page's rows are read (`pageOfIds`).
 */
function listGroupJobsSql(statusFilter: string, nameFilter: string): string {
  return pageOfIds(`SELECT id FROM ${T} WHERE queue = ? AND job_group = ? ${statusFilter} ${nameFilter} ORDER BY id DESC LIMIT ? OFFSET ?`);
}
const LIST_GROUP_JOBS_SQL = [listGroupJobsSql('', ''), listGroupJobsSql('AND status = ?', ''), listGroupJobsSql('', 'AND name = ?')];
const LIST_GROUP_JOBS_STATUS_NAME_SQL = listGroupJobsSql('AND status = ?', 'AND name = ?');

/**
 * Groups by running jobs (the few rows of the `_running` index), each with its pending jobs counted through
 * `_groups` up to the cap: a group's backlog is not read past it.
 */
const BUSIEST_GROUPS_SQL = `SELECT busy.g AS grp, busy.n AS running,
    (SELECT count(*) FROM (SELECT 1 FROM ${T} WHERE queue = ? AND job_group = busy.g AND status = 'pending' LIMIT ${GROUP_PENDING_COUNT_CAP})) AS pending
  FROM (SELECT job_group AS g, count(*) AS n FROM ${T} WHERE status = 'running' AND queue = ? AND job_group IS NOT NULL GROUP BY job_group) AS busy
  ORDER BY busy.n DESC, busy.g LIMIT ?`;

/** Job counts of one group, per status; of one name within it when `name` is given. */
export async function groupCounts(runner: StatementRunner, queue: string, group: string, name?: string): Promise<CountRow[]> {
  const rows =
    name === undefined
      ? await runner.all(GROUP_COUNTS_SQL, [queue, group, queue, group])
      : await runner.all(GROUP_NAME_COUNTS_SQL, [queue, group, name, queue, group, name]);
  return rows.map(toCountRow);
}

/** Jobs of one group, newest first. */
export async function listGroupJobs(runner: StatementRunner, queue: string, group: string, query: ListJobsQuery): Promise<JobRecord[]> {
  const { status, name, limit, offset } = query;
  const filters = [...(status === undefined ? [] : [status]), ...(name === undefined ? [] : [name])];
  const sql =
    status !== undefined && name !== undefined
      ? LIST_GROUP_JOBS_STATUS_NAME_SQL
      : LIST_GROUP_JOBS_SQL[status !== undefined ? 1 : name !== undefined ? 2 : 0];
  return (await runner.all(sql, [queue, group, ...filters, limit, offset])).map(toJobRecord);
}

/** The groups with the most running jobs. */
export async function busiestGroups(runner: StatementRunner, queue: string, limit: number): Promise<GroupLoad[]> {
  const rows = await runner.all(BUSIEST_GROUPS_SQL, [queue, queue, limit]);
  return rows.map((row) => ({ group: String(row.grp), running: Number(row.running), pending: Number(row.pending) }));
}
