import { JobRecord, ListJobsQuery } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { JobSort, SORT_SCAN_ROWS, SortRead, finishedOrderClause, orderByClause, sortRead } from '../../shared/job-sort';
import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/**
 * The statement of each read (`SortRead`), its filters appended in the order their parameters are bound: queue,
 * status (where it is a parameter), name, group, then limit and offset. Plans, checked with EXPLAIN QUERY PLAN on a
 * million rows (bench/list-plans.js):
 * - `ids`: the page's ids from the primary key (or the status's / group's index, whose entries end with the rowid),
 *   then the page's rows: as the default listing, in either direction (ascending with a status, after a probe of
 *   the table's oldest rows: `oldest`, see `listSortedJobs`);
 * - `running`: `_running` (every running job: few), sorted;
 * - `claim`: `_claim` (`_group_claim` with a group) walked in its order, forwards or backwards: no sort;
 * - `finished`: `_finished` walked in its order (queue, status, finished_at, rowid): no sort;
 * - `window`: a range of the rowid (the newest `SORT_SCAN_ROWS`), the `+` before each filtered column keeping SQLite
 *   off the indexes whose walk would read a big queue's every row, then a sort of the matches (a top-N sort for
 *   LIMIT): the range is the bound.
 */
function sortedSql(read: SortRead | 'oldest', query: ListJobsQuery, sort: JobSort): string {
  // The range reads (`window`, `oldest`) keep SQLite off the indexes with `+`: the rowid range is their bound.
  const ranged = read === 'window' || read === 'oldest';
  const name = query.name === undefined ? '' : ranged ? 'AND +name = ?' : 'AND name = ?';
  const group = query.group === undefined ? '' : ranged ? 'AND +job_group = ?' : 'AND job_group = ?';
  const filters = `${name} ${group}`;
  switch (read) {
    case 'ids': {
      const d = sort.descending ? 'DESC' : 'ASC';
      const status =
        query.status === undefined
          ? ''
          : `AND status = ? ${query.status === 'pending' || query.status === 'running' ? '' : 'AND finished_at IS NOT NULL'}`;
      return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE id IN (
        SELECT id FROM ${T} WHERE queue = ? ${status} ${filters} ORDER BY id ${d} LIMIT ? OFFSET ?) ORDER BY id ${d}`;
    }
    case 'oldest':
      return `SELECT ${JOB_COLUMNS} FROM ${T}
        WHERE id < (SELECT coalesce(min(id), 0) FROM ${T}) + ${OLDEST_PROBE_ROWS} AND +queue = ? AND +status = ? ${filters}
        ORDER BY id ASC LIMIT ? OFFSET ?`;
    case 'running':
      return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE status = 'running' AND queue = ? ${filters}
        ORDER BY ${orderByClause(sort)} LIMIT ? OFFSET ?`;
    case 'claim':
      return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = ? AND status = 'pending' ${filters}
        ORDER BY ${orderByClause(sort)} LIMIT ? OFFSET ?`;
    case 'finished':
      return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = ? AND status = ? AND finished_at IS NOT NULL ${filters}
        ORDER BY ${finishedOrderClause(sort)} LIMIT ? OFFSET ?`;
    case 'window':
      return `SELECT ${JOB_COLUMNS} FROM ${T}
        WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - ${SORT_SCAN_ROWS} AND +queue = ? ${query.status === undefined ? '' : 'AND +status = ?'} ${filters}
        ORDER BY ${orderByClause(sort)} LIMIT ? OFFSET ?`;
  }
}

/** How many of the table's oldest rows a status listing by id ascending reads before it sorts the status's ids. */
const OLDEST_PROBE_ROWS = 10_000;

const STATEMENTS = new Map<string, string>();

function statementFor(read: SortRead | 'oldest', query: ListJobsQuery, sort: JobSort): string {
  const key = [read, sort.by, sort.descending, query.status, query.name !== undefined, query.group !== undefined].join('|');
  let sql = STATEMENTS.get(key);
  if (sql === undefined) STATEMENTS.set(key, (sql = sortedSql(read, query, sort)));
  return sql;
}

/**
 * Jobs of a queue in the order `sort` asks (not the default one), through the read `sortRead` picks. A status by id
 * ascending first reads the table's oldest `OLDEST_PROBE_ROWS` rows (a forward range of the rowid), as the default
 * listing reads the newest: a full page there is the exact answer, since every row outside the range is newer than
 * all of it, where the status's index sorts every id of the status (810k completed jobs of a million rows: 646 ms,
 * bench/list-plans.js).
 */
export async function listSortedJobs(runner: StatementRunner, queue: string, query: ListJobsQuery, sort: JobSort): Promise<JobRecord[]> {
  const read = sortRead(query, sort);
  const params: unknown[] = [queue];
  // `running` and `claim` name their status in the statement, so that SQLite may use the partial index of it.
  if (query.status !== undefined && read !== 'running' && read !== 'claim') params.push(query.status);
  if (query.name !== undefined) params.push(query.name);
  if (query.group !== undefined) params.push(query.group);
  params.push(query.limit, query.offset);
  if (read === 'ids' && !sort.descending && query.status !== undefined) {
    const oldest = await runner.all(statementFor('oldest', query, sort), params);
    if (oldest.length === query.limit) return oldest.map(toJobRecord);
  }
  return (await runner.all(statementFor(read, query, sort), params)).map(toJobRecord);
}
