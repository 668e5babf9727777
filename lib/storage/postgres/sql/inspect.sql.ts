import {
  CountRow,
  FAILURE_ERROR_HEAD,
  FailureRow,
  FinishedJobTiming,
  JobRecord,
  ListJobsQuery,
  OldestDueRow,
} from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { queuesOf, toCountRow, toFinishedJobTiming, toJobRecord, toJobRecordWithRuns, toOldestDueRow } from '../../shared/job-row.mapper';
import { hasWorkSql, oldestDuePendingSql, queuesCte } from '../../shared/loose-index-scan';
import { PostgresContext, ms, perSchema, toRowId } from './postgres-sql-fragments';
import { listGroupJobs } from './groups.sql';
import { searchJobs } from './search.sql';
import { listSortedJobs } from './sorted-list.sql';
import { isDefaultSort } from '../../shared/job-sort';

/**
 * Counts by queue and status, each status group read from its own partial index (claim, running, finished), as an
 * index-only scan where the visibility map allows. One GROUP BY over the table read every row of it instead, and
 * of a single queue too, since no index covers all statuses (a million rows: 300 ms for one queue, against 65).
 * `queueFilter` is empty or `AND queue = $1`.
 */
function countSql(T: string, queueFilter: string): string {
  return `SELECT queue, 'pending' AS status, count(*) AS count FROM ${T} WHERE status = 'pending' ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, 'running' AS status, count(*) AS count FROM ${T} WHERE status = 'running' ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, 'claimed' AS status, count(*) AS count FROM ${T}
      WHERE status = 'running' AND started_at IS NULL ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, status, count(*) AS count FROM ${T}
      WHERE status IN ('completed', 'failed', 'cancelled') ${queueFilter} GROUP BY queue, status`;
}

const sql = perSchema(({ T, Q, S }) => ({
  getJob: `SELECT ${JOB_COLUMNS}, runs, run_batch FROM ${T} WHERE id = $1`,

  countAll: countSql(T, ''),

  countQueue: countSql(T, 'AND queue = $1'),

  // A job name filters the rows each branch's index walk of the queue reaches (no index has the name, see listJobs).
  countNamed: countSql(T, 'AND queue = $1 AND name = $2'),

  // A job name is a filter on the rows the queue's (and status's) walk reaches, never an index of its own: names
  // cost nothing on the claim and completion paths. $4 (resp. $5) is null for no name filter.
  listJobs: `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = $1 AND ($4::text IS NULL OR name = $4) ORDER BY id DESC LIMIT $2 OFFSET $3`,

  listJobsByStatus: `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = $1 AND status = $2 AND ($5::text IS NULL OR name = $5)
      ORDER BY id DESC LIMIT $3 OFFSET $4`,

  // Any status: a finished job's key is not indexed (only live keys are); an operator's look-up. A debounced job keeps
  // its key in debounce_key: tested on the same rows, the read costs no more.
  jobsByKey: `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = $1 AND (unique_key = $2 OR debounce_key = $2) ORDER BY id DESC LIMIT $3`,

  pausedQueues: `SELECT queue FROM ${Q} WHERE paused`,

  // Anything that names the queue: a job (the status index leads with the queue), its state row or a schedule.
  queueKnown: `SELECT EXISTS (SELECT 1 FROM ${T} WHERE queue = $1) OR EXISTS (SELECT 1 FROM ${Q} WHERE queue = $1)
      OR EXISTS (SELECT 1 FROM ${S} WHERE queue = $1) AS known`,

  // A loose index scan finds the queues (one index probe each), then each queue's newest finished jobs per
  // status come from a backward walk of the status index: no table scan and no index just for this.
  finishedSince: `WITH RECURSIVE ${queuesCte('queues', T, `status IN ('completed', 'failed', 'cancelled')`)}
      SELECT f.* FROM queues
      CROSS JOIN unnest(ARRAY['completed', 'failed', 'cancelled']) AS s(status)
      CROSS JOIN LATERAL (
        SELECT queue, status, started_at - run_at AS wait_ms, finished_at - started_at AS run_ms, finished_at
        FROM ${T} WHERE queue = queues.queue AND status = s.status AND status IN ('completed', 'failed', 'cancelled') AND finished_at >= $1
        ORDER BY finished_at DESC LIMIT $2
      ) AS f
      ORDER BY f.finished_at DESC LIMIT $2`,

  // The newest failed jobs of a queue: a backward walk of the partial status index, stopped at $2 rows, reading the
  // head of each error only (substr of a toasted text decompresses its head, not the whole stack and history).
  recentFailures: `SELECT id, finished_at, substr(error, 1, ${FAILURE_ERROR_HEAD}) AS head FROM ${T}
      WHERE queue = $1 AND status = 'failed' AND status IN ('completed', 'failed', 'cancelled')
      ORDER BY finished_at DESC LIMIT $2`,

  oldestDuePending: oldestDuePendingSql(T, '$1'),

  hasWork: hasWorkSql(T, Q, 'paused', '$1'),

  queueHasWork: hasWorkSql(T, Q, 'paused', '$1', '$2'),
}));

/** One job, or null (also for an id that names no job). */
export async function getJob(db: PostgresContext, id: string): Promise<JobRecord | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await db.runner.all(sql(db.tables).getJob, [rowId]);
  return row ? toJobRecordWithRuns(row) : null;
}

/** Jobs of a queue, newest first, or in the order `query.sort` asks. */
export async function listJobs(db: PostgresContext, queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
  if (query.search !== undefined) return searchJobs(db, queue, { ...query, search: query.search });
  if (!isDefaultSort(query.sort)) return listSortedJobs(db, queue, query, query.sort!);
  if (query.group !== undefined) return listGroupJobs(db, queue, query.group, query);
  const statements = sql(db.tables);
  const rows =
    query.status === undefined
      ? await db.runner.all(statements.listJobs, [queue, query.limit, query.offset, query.name ?? null])
      : await db.runner.all(statements.listJobsByStatus, [queue, query.status, query.limit, query.offset, query.name ?? null]);
  return rows.map(toJobRecord);
}

/** Jobs of a queue with this unique key, in any status, newest first. */
export async function jobsByKey(db: PostgresContext, queue: string, key: string, limit: number): Promise<JobRecord[]> {
  return (await db.runner.all(sql(db.tables).jobsByKey, [queue, key, limit])).map(toJobRecord);
}

/** Job counts per queue and status, optionally of one queue, and within it of one job name. */
export async function countJobs(db: PostgresContext, queue?: string, name?: string): Promise<CountRow[]> {
  const statements = sql(db.tables);
  const rows =
    queue === undefined
      ? await db.runner.all(statements.countAll, [])
      : name === undefined
        ? await db.runner.all(statements.countQueue, [queue])
        : await db.runner.all(statements.countNamed, [queue, name]);
  return rows.map(toCountRow);
}

/** Queues currently paused. */
export async function pausedQueues(db: PostgresContext): Promise<string[]> {
  return queuesOf(await db.runner.all(sql(db.tables).pausedQueues, []));
}

/** Whether the database has a job, a queue state row or a schedule of `queue`. */
export async function queueKnown(db: PostgresContext, queue: string): Promise<boolean> {
  const [row] = await db.runner.all(sql(db.tables).queueKnown, [queue]);
  return row?.known === true;
}

/** Whether a job is running, or pending, due and not paused; of one queue or of all. */
export async function hasWork(db: PostgresContext, queue: string | undefined, now: number): Promise<boolean> {
  const statements = sql(db.tables);
  const [row] =
    queue === undefined
      ? await db.runner.all(statements.hasWork, [ms(now)])
      : await db.runner.all(statements.queueHasWork, [ms(now), queue]);
  return Number(row?.busy) === 1;
}

/** The newest failed jobs of a queue, with the head of their errors. */
export async function recentFailures(db: PostgresContext, queue: string, limit: number): Promise<FailureRow[]> {
  const rows = await db.runner.all(sql(db.tables).recentFailures, [queue, limit]);
  return rows.map((row) => ({
    id: String(row.id),
    finishedAt: Number(row.finished_at),
    errorHead: row.head === null || row.head === undefined ? null : String(row.head),
  }));
}

/** Timings of jobs finished at or after `since`, newest first, at most `limit`. */
export async function finishedSince(db: PostgresContext, since: number, limit: number): Promise<FinishedJobTiming[]> {
  return (await db.runner.all(sql(db.tables).finishedSince, [ms(since), limit])).map(toFinishedJobTiming);
}

/** Per queue, the run time of its oldest due pending job. */
export async function oldestDuePending(db: PostgresContext, now: number): Promise<OldestDueRow[]> {
  return (await db.runner.all(sql(db.tables).oldestDuePending, [ms(now)])).map(toOldestDueRow);
}
