import { JobRecord, ListJobsQuery } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { searchNeedles, searchScanRows } from '../../shared/job-search';
import { orderByClause } from '../../shared/job-sort';
import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/** The JSON columns' test: the text as typed, and (`escaped`) as JSON writes it inside a string (see `SearchNeedles`). */
function jsonColumnTest(column: string, escaped: boolean): string {
  const typed = `instr(lower(${column}), lower(?)) > 0`;
  return escaped ? `${typed} OR instr(lower(${column}), lower(?)) > 0` : typed;
}

/**
 * The table's newest `scanRows` rows by id (`SEARCH_SCAN_ROWS` but in the storage contract; a range of the rowid: `max(id)` is read from the b-tree's end),
 * those of the queue (and status, name, group), then those holding the text. The `+` before each filtered column keeps
 * SQLite off the queue's and the group's indexes, whose walk would read every pending or finished row of a big queue
 * or group: the rowid range is the bound, whatever the filters. A job's key is its unique key or, debounced, its
 * debounce key: both are tested. `instr` on `lower()` of both sides: no character of
 * the text is a pattern, and SQLite's `lower` folds ASCII only, on both sides alike (so `É` finds `É`, not `é`).
 * `filter` is made of `AND +status = ?`, `AND +name = ?`, `AND +job_group = ?` (each optional, in that order);
 * `order` is the ORDER BY (`orderByClause`: newest first unless `query.sort` says otherwise), a sort of the matches.
 */
function searchSql(filter: string, escaped: boolean, order: string, scanRows: number): string {
  return `SELECT ${JOB_COLUMNS} FROM ${T}
    WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - ${scanRows} AND +queue = ? ${filter}
      AND (${jsonColumnTest('data', escaped)} OR ${jsonColumnTest('error', escaped)}
        OR instr(lower(name), lower(?)) > 0 OR instr(lower(unique_key), lower(?)) > 0
        OR instr(lower(debounce_key), lower(?)) > 0)
    ORDER BY ${order} LIMIT ? OFFSET ?`;
}

const STATEMENTS = new Map<string, string>();

function statementFor(query: ListJobsQuery, escaped: boolean): string {
  const filter = [
    query.status === undefined ? '' : 'AND +status = ?',
    query.name === undefined ? '' : 'AND +name = ?',
    query.group === undefined ? '' : 'AND +job_group = ?',
  ].join(' ');
  const order = orderByClause(query.sort ?? { by: 'id', descending: true });
  const scanRows = searchScanRows(query);
  const key = `${filter}|${escaped}|${order}|${scanRows}`;
  let sql = STATEMENTS.get(key);
  if (sql === undefined) STATEMENTS.set(key, (sql = searchSql(filter, escaped, order, scanRows)));
  return sql;
}

/** Jobs of a queue holding `query.search`, newest first (or as `query.sort` asks), among the table's newest `SEARCH_SCAN_ROWS` (see `ListJobsQuery.search`). */
export async function searchJobs(runner: StatementRunner, queue: string, query: ListJobsQuery & { search: string }): Promise<JobRecord[]> {
  const { plain, json } = searchNeedles(query.search);
  // Each look-up lower-cases the column: the second one only where the JSON form differs from the text.
  const escaped = json !== plain;
  const params: unknown[] = [queue];
  if (query.status !== undefined) params.push(query.status);
  if (query.name !== undefined) params.push(query.name);
  if (query.group !== undefined) params.push(query.group);
  const jsonNeedles = escaped ? [plain, json] : [plain];
  params.push(...jsonNeedles, ...jsonNeedles, plain, plain, plain, query.limit, query.offset);
  return (await runner.all(statementFor(query, escaped), params)).map(toJobRecord);
}
