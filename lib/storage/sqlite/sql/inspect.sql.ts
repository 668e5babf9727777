import { JobStatus } from '../../../interfaces/job-info.interface';
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
import { StatementRunner } from '../../shared/statement-runner';
import { hasWorkSql, oldestDuePendingSql, queuesCte } from '../../shared/loose-index-scan';
import { Q, S, T, pageOfIds, toRowId } from './sqlite-sql-fragments';
import { listGroupJobs } from './groups.sql';
import { searchJobs } from './search.sql';
import { listSortedJobs } from './sorted-list.sql';
import { isDefaultSort } from '../../shared/job-sort';

const GET_JOB_SQL = `SELECT ${JOB_COLUMNS}, runs, run_batch FROM ${T} WHERE id = ?`;

/**
 * Counts by queue and status, each status group read from its own partial index (claim, running, finished), and of
 * the running rows those claimed ahead (`claimed`: no start yet), a read of the few running rows (see CountRow).
 * `queueFilter` is empty, `AND queue = ?` or `AND queue = ? AND name = ?` (then its parameters are repeated for each
 * of the four branches).
 */
function countSql(queueFilter: string): string {
  return `SELECT queue, 'pending' AS status, COUNT(*) AS count FROM ${T} WHERE status = 'pending' ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, 'running' AS status, COUNT(*) AS count FROM ${T} WHERE status = 'running' ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, 'claimed' AS status, COUNT(*) AS count FROM ${T} WHERE status = 'running' AND started_at IS NULL ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, status, COUNT(*) AS count FROM ${T} WHERE finished_at IS NOT NULL ${queueFilter} GROUP BY queue, status`;
}

const COUNT_ALL_SQL = countSql('');

const COUNT_QUEUE_SQL = countSql('AND queue = ?');

/**
 * A job name is a filter on the rows each branch's walk of the queue reaches (no index has the name, see
 * `listJobsSql`): the cost is that of the queue's count plus a read of each of its rows. Measured on 100k rows
 * (70k in the queue): 27 ms, the plan three index searches (claim and finished by queue, the small running index).
 */
const COUNT_NAMED_SQL = countSql('AND queue = ? AND name = ?');

/**
 * `nameFilter` is empty or `AND name = ?`: a job name is a filter on the rows the queue's (and status's) walk
 * reaches, never an index of its own, so names cost nothing on the claim and completion paths.
 */
function listJobsSql(nameFilter: string) {
  return {
    /** A backward walk of the rowid, keeping the queue's rows: stops at the page's end. */
    all: `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = ? ${nameFilter} ORDER BY id DESC LIMIT ? OFFSET ?`,
    /** Pending or running jobs, through the claim or the running index. */
    byStatus: pageOfIds(`SELECT id FROM ${T} WHERE queue = ? AND status = ? ${nameFilter} ORDER BY id DESC LIMIT ? OFFSET ?`),
    /** Completed, failed or cancelled jobs, through the finished index. */
    finished: pageOfIds(`SELECT id FROM ${T}
      WHERE queue = ? AND status = ? AND finished_at IS NOT NULL ${nameFilter} ORDER BY id DESC LIMIT ? OFFSET ?`),
    /**
     * A status's page among the table's newest `LIST_PROBE_ROWS` rows (a backward range of the rowid; `+` keeps
     * SQLite off the status indexes), read first: a full page there is the exact answer, as every row outside the
     * range is older than all of it. A common status (the completed tab of a big queue) is served here in a few
     * rows, where its index would sort every id of the status (810k: 4.6 s on a million rows, bench/list-plans.js).
     */
    recent: `SELECT ${JOB_COLUMNS} FROM ${T}
      WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - ${LIST_PROBE_ROWS} AND +queue = ? AND +status = ? ${nameFilter.replace('name', '+name')}
      ORDER BY id DESC LIMIT ? OFFSET ?`,
  };
}

/** How many of the table's newest rows a status listing reads before it walks the status's index (see `recent`). */
const LIST_PROBE_ROWS = 10_000;

const LIST_JOBS_SQL = listJobsSql('');
const LIST_NAMED_JOBS_SQL = listJobsSql('AND name = ?');

/**
 * Any status: a finished job's key is not indexed (only live keys are), so this reads the queue's rows; an operator's
 * look-up. A debounced job keeps its key in debounce_key: tested on the same rows, the read costs no more.
 */
const JOBS_BY_KEY_SQL = `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = ? AND (unique_key = ? OR debounce_key = ?) ORDER BY id DESC LIMIT ?`;

const PAUSED_QUEUES_SQL = `SELECT queue FROM ${Q} WHERE paused = 1`;

/**
 * Whether anything in the database names the queue: a job of any status (each status group probed through its own
 * partial index), its row of queue state (paused, limits, processor announcements) or a schedule.
 */
const QUEUE_KNOWN_SQL = `SELECT (EXISTS (SELECT 1 FROM ${T} WHERE queue = ? AND status = 'pending')
    OR EXISTS (SELECT 1 FROM ${T} WHERE queue = ? AND finished_at IS NOT NULL)
    OR EXISTS (SELECT 1 FROM ${T} WHERE status = 'running' AND queue = ?)
    OR EXISTS (SELECT 1 FROM ${Q} WHERE queue = ?)
    OR EXISTS (SELECT 1 FROM ${S} WHERE queue = ?)) AS known`;

/**
 * The finished queues by a loose index scan of the finished index (a DISTINCT read all of it), then each queue's and
 * status's range of that index from `since`. Named: with statistics saying most rows are finished, the planner took a
 * scan of the whole table instead (a million finished jobs: 240 ms for a one-minute window, against 10 ms).
 */
const FINISHED_SINCE_SQL = `WITH RECURSIVE ${queuesCte('finished_queue', T, 'finished_at IS NOT NULL')}
  SELECT queue, status, started_at - run_at AS wait_ms, finished_at - started_at AS run_ms, finished_at
  FROM ${T} INDEXED BY ${T}_finished
  WHERE queue IN (SELECT queue FROM finished_queue WHERE queue IS NOT NULL)
    AND status IN ('completed', 'failed', 'cancelled') AND finished_at >= ?
  ORDER BY finished_at DESC LIMIT ?`;

const OLDEST_DUE_PENDING_SQL = oldestDuePendingSql(T, '?');

const HAS_WORK_SQL = hasWorkSql(T, Q, 'paused = 1', '?');
/** Its parameters: the queue twice, then the time. */
const QUEUE_HAS_WORK_SQL = hasWorkSql(T, Q, 'paused = 1', '?', '?');

/** One job, or null (also for an id that names no job). */
export async function getJob(runner: StatementRunner, id: string): Promise<JobRecord | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await runner.all(GET_JOB_SQL, [rowId]);
  return row ? toJobRecordWithRuns(row) : null;
}

/** Jobs of a queue, newest first, or in the order `query.sort` asks. */
export async function listJobs(runner: StatementRunner, queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
  if (query.search !== undefined) return searchJobs(runner, queue, { ...query, search: query.search });
  if (!isDefaultSort(query.sort)) return listSortedJobs(runner, queue, query, query.sort!);
  if (query.group !== undefined) return listGroupJobs(runner, queue, query.group, query);
  const { status, name, limit, offset } = query;
  const statements = name === undefined ? LIST_JOBS_SQL : LIST_NAMED_JOBS_SQL;
  const named = name === undefined ? [] : [name];
  if (status === undefined) return (await runner.all(statements.all, [queue, ...named, limit, offset])).map(toJobRecord);
  const params = [queue, status, ...named, limit, offset];
  const recent = await runner.all(statements.recent, params);
  if (recent.length === limit) return recent.map(toJobRecord);
  return (await runner.all(isFinishedStatus(status) ? statements.finished : statements.byStatus, params)).map(toJobRecord);
}

/** Jobs of a queue with this unique key, in any status, newest first. */
export async function jobsByKey(runner: StatementRunner, queue: string, key: string, limit: number): Promise<JobRecord[]> {
  return (await runner.all(JOBS_BY_KEY_SQL, [queue, key, key, limit])).map(toJobRecord);
}

/** Job counts per queue and status, optionally of one queue, and within it of one job name. */
export async function countJobs(runner: StatementRunner, queue?: string, name?: string): Promise<CountRow[]> {
  const rows =
    queue === undefined
      ? await runner.all(COUNT_ALL_SQL, [])
      : name === undefined
        ? await runner.all(COUNT_QUEUE_SQL, [queue, queue, queue, queue])
        : await runner.all(COUNT_NAMED_SQL, [queue, name, queue, name, queue, name, queue, name]);
  return rows.map(toCountRow);
}

/** Queues currently paused. */
export async function pausedQueues(runner: StatementRunner): Promise<string[]> {
  return queuesOf(await runner.all(PAUSED_QUEUES_SQL, []));
}

/** Whether the database has a job, a queue state row or a schedule of `queue`. */
export async function queueKnown(runner: StatementRunner, queue: string): Promise<boolean> {
  const [row] = await runner.all(QUEUE_KNOWN_SQL, [queue, queue, queue, queue, queue]);
  return Number(row?.known) === 1;
}

/**
 * The newest failed jobs of a queue: a backward walk of the `_finished` index (queue, status, finished_at) that stops
 * at `limit` rows, reading only the head of each error (a stored error carries stacks and earlier attempts' errors).
 */
const RECENT_FAILURES_SQL = `SELECT id, finished_at, substr(error, 1, ${FAILURE_ERROR_HEAD}) AS head FROM ${T}
  WHERE queue = ? AND status = 'failed' AND finished_at IS NOT NULL ORDER BY finished_at DESC LIMIT ?`;

/** The newest failed jobs of a queue, with the head of their errors. */
export async function recentFailures(runner: StatementRunner, queue: string, limit: number): Promise<FailureRow[]> {
  const rows = await runner.all(RECENT_FAILURES_SQL, [queue, limit]);
  return rows.map((row) => ({
    id: String(row.id),
    finishedAt: Number(row.finished_at),
    errorHead: row.head === null || row.head === undefined ? null : String(row.head),
  }));
}

/** Timings of jobs finished at or after `since`, newest first, at most `limit`. */
export async function finishedSince(runner: StatementRunner, since: number, limit: number): Promise<FinishedJobTiming[]> {
  return (await runner.all(FINISHED_SINCE_SQL, [since, limit])).map(toFinishedJobTiming);
}

/** Per queue, the run time of its oldest due pending job. */
export async function oldestDuePending(runner: StatementRunner, now: number): Promise<OldestDueRow[]> {
  return (await runner.all(OLDEST_DUE_PENDING_SQL, [now])).map(toOldestDueRow);
}

/** Whether a job is running, or pending, due and not paused; of one queue or of all. */
export async function hasWork(runner: StatementRunner, queue: string | undefined, now: number): Promise<boolean> {
  const [row] = queue === undefined ? await runner.all(HAS_WORK_SQL, [now]) : await runner.all(QUEUE_HAS_WORK_SQL, [queue, queue, now]);
  return Number(row?.busy) === 1;
}

/** Completed, failed and cancelled rows are the ones with a finished_at, and the finished index holds only those. */
function isFinishedStatus(status: JobStatus): boolean {
  return status !== 'pending' && status !== 'running';
}
