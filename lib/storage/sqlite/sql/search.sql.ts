import { JobRecord, ListJobsQuery } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { SEARCH_SCAN_ROWS, searchNeedles } from '../../shared/job-search';
import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/**
 * The table's newest `SEARCH_SCAN_ROWS` rows by id (a range of the rowid: `max(id)` is read from the b-tree's end),
 * those of the queue (and status, and name), then those holding the text. The `+` before each filtered column keeps
 * SQLite off the queue's indexes, whose walk would read every pending or finished row of a big queue: the rowid range
 * is the bound. `instr` on `lower()` of both sides: no character of the text is a pattern, and SQLite's `lower` folds
 * ASCII only, on both sides alike (so `É` finds `É`, not `é`). `filter` is '', `AND +status = ?`, `AND +name = ?` or both.
 */
function searchSql(filter: string): string {
  return `SELECT ${JOB_COLUMNS} FROM ${T}
    WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - ${SEARCH_SCAN_ROWS} AND +queue = ? ${filter}
      AND (instr(lower(data), lower(?)) > 0 OR instr(lower(error), lower(?)) > 0
        OR instr(lower(name), lower(?)) > 0 OR instr(lower(unique_key), lower(?)) > 0)
    ORDER BY id DESC LIMIT ? OFFSET ?`;
}

const STATEMENTS = new Map<string, string>();

function statementFor(query: ListJobsQuery): string {
  const filter = [query.status === undefined ? '' : 'AND +status = ?', query.name === undefined ? '' : 'AND +name = ?'].join(' ');
  let sql = STATEMENTS.get(filter);
  if (sql === undefined) STATEMENTS.set(filter, (sql = searchSql(filter)));
  return sql;
}

/** Jobs of a queue holding `query.search`, newest first, among the table's newest `SEARCH_SCAN_ROWS` (see `ListJobsQuery.search`). */
export async function searchJobs(runner: StatementRunner, queue: string, query: ListJobsQuery & { search: string }): Promise<JobRecord[]> {
  const { plain, json } = searchNeedles(query.search);
  const params: unknown[] = [queue];
  if (query.status !== undefined) params.push(query.status);
  if (query.name !== undefined) params.push(query.name);
  params.push(json, json, plain, plain, query.limit, query.offset);
  return (await runner.all(statementFor(query), params)).map(toJobRecord);
}
