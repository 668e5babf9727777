import { JobRecord, ListJobsQuery } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { searchNeedles, searchScanRows } from '../../shared/job-search';
import { JobSort, orderByClause } from '../../shared/job-sort';
import { PostgresContext, PostgresTables, perSchema } from './postgres-sql-fragments';

/**
 * The JSON columns' test: the text as typed ($5), or as JSON writes it inside a string ($6, see `SearchNeedles`),
 * the second look-up made only when the two differ (`$6 <> $5` is tested before it, per row but on no column).
 */
const jsonColumnTest = (column: string) =>
  `strpos(lower(${column}), lower($5)) > 0 OR ($6 <> $5 AND strpos(lower(${column}), lower($6)) > 0)`;

/**
 * The table's newest `scanRows` rows by id (`SEARCH_SCAN_ROWS` but in the storage contract; a backward range of the primary key, `max(id)` read from its
 * end), those of the queue (and status, name, group: each null for none), then those holding the text. `queue || ''`
 * keeps the planner off the queue's partial indexes and the group's index, whose walk would read every pending or
 * finished row of a big queue or group: the id range is the bound. A job's key is its unique key or, debounced, its
 * debounce key: both are tested. `strpos` on `lower()` of both sides, so no
 * character of the text is a pattern (ILIKE would need `%`, `_` and `\` escaped) and case folds as the database's
 * collation says. pg_trgm would index the text, but it is an extension a managed server may not allow, and its GIN
 * index is paid by every enqueue. Params: queue, status, name, group, typed needle, JSON needle, limit, offset.
 */
function searchSql(T: string, order: string, scanRows: number): string {
  return `SELECT ${JOB_COLUMNS} FROM ${T}
    WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - ${scanRows} AND queue || '' = $1
      AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR name = $3)
      AND ($4::text IS NULL OR job_group || '' = $4)
      AND (${jsonColumnTest('data')} OR ${jsonColumnTest('error')}
        OR strpos(lower(name), lower($5)) > 0 OR strpos(lower(unique_key), lower($5)) > 0
        OR strpos(lower(debounce_key), lower($5)) > 0)
    ORDER BY ${order} LIMIT $7 OFFSET $8`;
}

/** Each schema's search statements, by ORDER BY and bound (`orderByClause`: newest first unless `query.sort` says otherwise). */
const statements = perSchema(() => new Map<string, string>());

function statementFor(tables: PostgresTables, sort: JobSort, scanRows: number): string {
  const order = orderByClause(sort, 'name COLLATE "C"');
  const cache = statements(tables);
  const key = `${order}|${scanRows}`;
  let sql = cache.get(key);
  if (sql === undefined) cache.set(key, (sql = searchSql(tables.T, order, scanRows)));
  return sql;
}

/** Jobs of a queue holding `query.search`, newest first (or as `query.sort` asks), among the table's newest `SEARCH_SCAN_ROWS` (see `ListJobsQuery.search`). */
export async function searchJobs(db: PostgresContext, queue: string, query: ListJobsQuery & { search: string }): Promise<JobRecord[]> {
  const { plain, json } = searchNeedles(query.search);
  const params = [queue, query.status ?? null, query.name ?? null, query.group ?? null, plain, json, query.limit, query.offset];
  return (await db.runner.all(statementFor(db.tables, query.sort ?? { by: 'id', descending: true }, searchScanRows(query)), params)).map(
    toJobRecord,
  );
}
