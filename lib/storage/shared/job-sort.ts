/**
 * What both backends' sorted listings (`sql/sorted-list.sql.ts`) share: which read serves an order, and each
 * order's ORDER BY. The rule is the same on both, so an order is exact or bounded alike on SQLite and PostgreSQL.
 */
import type { JobSort, ListJobsQuery } from '../storage-records';
import { SEARCH_SCAN_ROWS } from './job-search';

// The record type lives with the other records; re-exported where the sort rules are, for their readers.
export type { JobSort } from '../storage-records';

/**
 * Most rows an order no index serves reads: the table's newest this many (by id, every queue), as a search does
 * (`SEARCH_SCAN_ROWS`), so it costs the same on a table of any size.
 */
export const SORT_SCAN_ROWS = SEARCH_SCAN_ROWS;

/**
 * The read that serves a sorted listing:
 * - `ids`: by id, a walk of the primary key (or of the status's or group's index, whose entries end with the id);
 * - `running`: every running job of the queue, through the small index of running jobs, sorted (few: at most the
 *   processes' concurrency);
 * - `claim`: pending jobs by priority, a walk of the claim index (of the group's claim index with a group);
 * - `finished`: a finished status by finish time, a walk of the finished index;
 * - `window`: anything else, the matching jobs among the table's newest `SORT_SCAN_ROWS`, sorted.
 * A search always reads its own window (`SEARCH_SCAN_ROWS`), whatever the order.
 */
export type SortRead = 'ids' | 'running' | 'claim' | 'finished' | 'window';

/** The read that serves `sort` with the filters of `query` (a search aside: see `SortRead`). */
export function sortRead(query: Pick<ListJobsQuery, 'status' | 'group'>, sort: JobSort): SortRead {
  if (sort.by === 'id') return 'ids';
  if (query.status === 'running') return 'running';
  if (sort.by === 'priority' && query.status === 'pending') return 'claim';
  if (sort.by === 'finishedAt' && isFinished(query.status) && query.group === undefined) return 'finished';
  return 'window';
}

/**
 * Whether the order is exact over the whole queue (an index serves it), or over the table's newest
 * `SORT_SCAN_ROWS` jobs (a search, or the `window` read).
 */
export function sortIsExact(query: Pick<ListJobsQuery, 'status' | 'group' | 'search'>, sort: JobSort | undefined): boolean {
  if (query.search !== undefined) return false;
  return sort === undefined || sortRead(query, sort) !== 'window';
}

/**
 * The ORDER BY of `sort`, ties by id in the same direction. A column a job may lack sorts those without last in
 * both directions (`x IS NULL` first: false before true on both backends), written only where it can be null, so
 * the finished index still serves `finished_at` among finished jobs. `priority` orders as the claim takes jobs
 * (priority high first, then run time and id oldest first) when descending, the reverse when ascending. `nameOrder`
 * is the name column as the backend compares it in byte order (SQLite's BINARY, PostgreSQL's "C").
 */
export function orderByClause(sort: JobSort, nameOrder = 'name'): string {
  const d = sort.descending ? 'DESC' : 'ASC';
  const r = sort.descending ? 'ASC' : 'DESC';
  switch (sort.by) {
    case 'id':
      return `id ${d}`;
    case 'createdAt':
      return `created_at ${d}, id ${d}`;
    case 'runAt':
      return `run_at ${d}, id ${d}`;
    case 'finishedAt':
      return `finished_at IS NULL, finished_at ${d}, id ${d}`;
    case 'priority':
      return `priority ${d}, run_at ${r}, id ${r}`;
    case 'attempts':
      return `attempts ${d}, id ${d}`;
    case 'name':
      return `name IS NULL, ${nameOrder} ${d}, id ${d}`;
  }
}

/** `orderByClause` of a finished status by finish time: no null to place, so the finished index serves it. */
export function finishedOrderClause(sort: JobSort): string {
  const d = sort.descending ? 'DESC' : 'ASC';
  return `finished_at ${d}, id ${d}`;
}

/** Whether `sort` is the default order (id, newest first), which the plain listings serve. */
export function isDefaultSort(sort: JobSort | undefined): boolean {
  return sort === undefined || (sort.by === 'id' && sort.descending);
}

function isFinished(status: ListJobsQuery['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
