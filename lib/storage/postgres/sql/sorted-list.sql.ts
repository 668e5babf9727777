import { JobRecord, ListJobsQuery } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { JobSort, SORT_SCAN_ROWS, SortRead, finishedOrderClause, orderByClause, sortRead } from '../../shared/job-sort';
import { PostgresContext, PostgresTables, perSchema } from './postgres-sql-fragments';

/** Names sort in byte order (code point order of UTF-8), as SQLite's BINARY does, whatever the database's collation. */
const NAME_ORDER = 'name COLLATE "C"';

/**
 * The statement of each read (`SortRead`); parameters in the order they are bound: queue, status (where it is a
 * parameter), name, group, then limit and offset. Plans, checked with EXPLAIN on a million rows
 * (bench/list-plans.js):
 * - `ids`: a walk of the primary key (of the status's or group's index, then a sort of their ids) as the default
 *   listing, in either direction;
 * - `running`: `_running` (every running job: few), sorted;
 * - `claim`: `_claim` (`_group_claim` with a group) walked in its order, forwards or backwards: no sort;
 * - `finished`: the partial `_status` index walked in finish-time order, ties of one millisecond sorted by id (an
 *   incremental sort of each tie only); `finished_at IS NOT NULL` lets the walk skip any row without one, which a
 *   descending walk would meet first (NULLs sort high) and the incremental sort would read whole;
 * - `window`: a range of the primary key (the newest `SORT_SCAN_ROWS`), `|| ''` keeping the planner off the queue's
 *   and the group's indexes, whose walk would read a big queue's every row, then a top-N sort of the matches.
 */
function sortedSql(T: string, read: SortRead, query: ListJobsQuery, sort: JobSort): string {
  let n = 1;
  const next = () => `$${++n}`;
  const status = query.status !== undefined && read !== 'running' && read !== 'claim' ? next() : null;
  const window = read === 'window';
  const name = query.name === undefined ? '' : `AND name = ${next()}`;
  const group = query.group === undefined ? '' : `AND job_group${window ? " || ''" : ''} = ${next()}`;
  const page = `LIMIT ${next()} OFFSET ${next()}`;
  const filters = `${name} ${group}`;
  switch (read) {
    case 'ids':
      return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = $1 ${status ? `AND status = ${status}` : ''} ${filters}
        ORDER BY ${orderByClause(sort)} ${page}`;
    case 'running':
      return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE status = 'running' AND queue = $1 ${filters}
        ORDER BY ${orderByClause(sort, NAME_ORDER)} ${page}`;
    case 'claim':
      return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = $1 AND status = 'pending' ${filters}
        ORDER BY ${orderByClause(sort)} ${page}`;
    case 'finished':
      return `SELECT ${JOB_COLUMNS} FROM ${T}
        WHERE queue = $1 AND status = ${status} AND status IN ('completed', 'failed', 'cancelled') AND finished_at IS NOT NULL ${filters}
        ORDER BY ${finishedOrderClause(sort)} ${page}`;
    case 'window':
      return `SELECT ${JOB_COLUMNS} FROM ${T}
        WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - ${SORT_SCAN_ROWS} AND queue || '' = $1
          ${status ? `AND status = ${status}` : ''} ${filters}
        ORDER BY ${orderByClause(sort, NAME_ORDER)} ${page}`;
  }
}

/** Each schema's statements, by read, order and filters. */
const statements = perSchema(() => new Map<string, string>());

function statementFor(tables: PostgresTables, read: SortRead, query: ListJobsQuery, sort: JobSort): string {
  const cache = statements(tables);
  const key = [read, sort.by, sort.descending, query.status, query.name !== undefined, query.group !== undefined].join('|');
  let sql = cache.get(key);
  if (sql === undefined) cache.set(key, (sql = sortedSql(tables.T, read, query, sort)));
  return sql;
}

/** Jobs of a queue in the order `sort` asks (not the default one), through the read `sortRead` picks. */
export async function listSortedJobs(db: PostgresContext, queue: string, query: ListJobsQuery, sort: JobSort): Promise<JobRecord[]> {
  const read = sortRead(query, sort);
  const params: unknown[] = [queue];
  // `running` and `claim` name their status in the statement, so that the planner may use the partial index of it.
  if (query.status !== undefined && read !== 'running' && read !== 'claim') params.push(query.status);
  if (query.name !== undefined) params.push(query.name);
  if (query.group !== undefined) params.push(query.group);
  params.push(query.limit, query.offset);
  return (await db.runner.all(statementFor(db.tables, read, query, sort), params)).map(toJobRecord);
}
