/**
 * Names and fragments the PostgreSQL statements of this folder share. The tables live in their own schema, whose
 * (validated) name is part of the SQL text, so each file builds its statements once per schema (`perSchema`).
 * Parameters are positional `$n`, bound right beside their SQL; lists travel as PostgreSQL arrays (`$n::bigint[]`),
 * never as JSON, because job data may hold `\u0000` escapes that jsonb refuses.
 *
 * Wake-ups: every statement that makes a job claimable now (enqueue, hand-back, recovery, retry of finished jobs,
 * schedule occurrences) also calls `pg_notify` in the same statement when at least one of its rows is due by the
 * caller's clock. PostgreSQL delivers the notification at commit, to every listening session on every machine, and
 * drops it on rollback. Deciding "due" with the caller's `now` (not the database clock) keeps a skewed database
 * clock from silencing hints for immediate jobs.
 */
import {
  EVENT_READERS_TABLE,
  FINISH_WAITERS_MARK,
  DEPENDENCIES_TABLE,
  GROUP_LIMITS_TABLE,
  JOBS_TABLE,
  QUEUES_TABLE,
  SCHEDULES_TABLE,
} from '../../../table-names.constants';
import { AttemptRef, NewJobRecord } from '../../queue-storage.interface';
import { StatementOptions, StatementRunner } from '../../shared/statement-runner';
import { FINISH_WAITERS_TTL } from '../../shared/finish-waiters';
import { LIMITS } from '../../../utils/validation.util';

/** The tables and notification channel of one schema, as SQL text. */
export interface PostgresTables {
  /** The jobs table, schema-qualified. */
  readonly T: string;
  /** The queues (pause state) table, schema-qualified. */
  readonly Q: string;
  /** The schedules table, schema-qualified. */
  readonly S: string;
  /** The event readers (heartbeats) table, schema-qualified. */
  readonly R: string;
  /** The schema's LISTEN/NOTIFY channel. */
  readonly channel: string;
  /** The channel announcing finished jobs (payload: their ids), for `waitUntilFinished` in other processes. */
  readonly finishChannel: string;
  /** The channel announcing a published batch of cluster events (no payload). */
  readonly eventsChannel: string;
  /** The function counting a queue's running jobs on a fresh snapshot (migration 5, `queue-limits`), schema-qualified. */
  readonly runningCount: string;
  /** The function counting a queue's running jobs per group on a fresh snapshot (migration 9, `job-groups`), schema-qualified. */
  readonly groupRunning: string;
  /** The groups' rate windows and pauses (migration 16, `group-limits`), schema-qualified. */
  readonly G: string;
  /** The function reading a queue's groups held back by a window or a pause on a fresh snapshot (migration 16), schema-qualified. */
  readonly groupWindows: string;
  /** Which job waits for which (`dependsOn`, migration 17), schema-qualified. */
  readonly D: string;
}

/** What every statement function of `postgres/sql/` is given: where to run, and the schema's tables. */
export interface PostgresContext {
  readonly runner: StatementRunner;
  readonly tables: PostgresTables;
}

/** The LISTEN/NOTIFY channel of a schema's queue: one per schema, so two apps in two schemas never wake each other. */
export function notifyChannel(schema: string): string {
  return `${schema}_jobs_due`;
}

const tablesBySchema = new Map<string, PostgresTables>();

/** The tables of `schema` (validated by the caller); one object per schema, so `perSchema` caches by it. */
export function postgresTables(schema: string): PostgresTables {
  let tables = tablesBySchema.get(schema);
  if (!tables) {
    tables = {
      T: `"${schema}".${JOBS_TABLE}`,
      Q: `"${schema}".${QUEUES_TABLE}`,
      S: `"${schema}".${SCHEDULES_TABLE}`,
      R: `"${schema}".${EVENT_READERS_TABLE}`,
      channel: notifyChannel(schema),
      finishChannel: `${schema}_jobs_done`,
      eventsChannel: `${schema}_events`,
      runningCount: `"${schema}".${JOBS_TABLE}_running_count`,
      groupRunning: `"${schema}".${JOBS_TABLE}_group_running`,
      G: `"${schema}".${GROUP_LIMITS_TABLE}`,
      groupWindows: `"${schema}".${JOBS_TABLE}_group_windows`,
      D: `"${schema}".${DEPENDENCIES_TABLE}`,
    };
    tablesBySchema.set(schema, tables);
  }
  return tables;
}

/** Builds a file's statements once per schema: the SQL text of a statement stays one constant string per schema. */
export function perSchema<T>(build: (tables: PostgresTables) => T): (tables: PostgresTables) => T {
  const cache = new WeakMap<PostgresTables, T>();
  return (tables) => {
    let built = cache.get(tables);
    if (built === undefined) {
      built = build(tables);
      cache.set(tables, built);
    }
    return built;
  };
}

/**
 * A WITH item that notifies the schema's channel when `rows` (a FROM item with its WHERE) has a row. Referenced
 * from the final SELECT of each statement: a plain SELECT in a WITH runs only when referenced.
 */
export function notifyIfAny(tables: PostgresTables, rows: string): string {
  return `hint AS (SELECT pg_notify('${tables.channel}', '') FROM (SELECT 1 FROM ${rows} LIMIT 1) AS any_row)`;
}

/**
 * Longest id list a finish notification carries (PostgreSQL refuses payloads of 8000 bytes and more). Past it the
 * payload is empty, which listeners read as "some jobs finished": they look at every job they wait for.
 */
const MAX_FINISH_PAYLOAD = 7900;

/** Whether some process waits for jobs to finish: its heartbeat is fresh at `now` (a statement parameter, ms). */
export function finishWaitersAt(tables: PostgresTables, now: string): string {
  return `EXISTS (SELECT 1 FROM ${tables.R} WHERE origin = '${FINISH_WAITERS_MARK}' AND seen_at >= ${now}::bigint - ${FINISH_WAITERS_TTL})`;
}

/**
 * A WITH item that announces the jobs of `rows` (a FROM item with an `id` column, and its WHERE) as finished: ONE
 * `pg_notify` for the whole statement, its payload the ids joined by commas, delivered at commit and dropped on
 * rollback. Referenced from the final SELECT like `notifyIfAny`. Sent only while some process waits for a job: waiting
 * processes keep one shared heartbeat row fresh, and the gate is a primary-key lookup of it (`now` is the statement's
 * parameter holding the caller's clock), evaluated before the ids are even gathered. So while nobody waits anywhere,
 * an outcome batch pays that lookup and no notification.
 */
export function notifyFinished(tables: PostgresTables, rows: string, now: string): string {
  return `done AS (SELECT pg_notify('${tables.finishChannel}', CASE WHEN length(ids) < ${MAX_FINISH_PAYLOAD} THEN ids ELSE '' END)
      FROM (SELECT string_agg(id::text, ',') AS ids FROM ${rows}) AS finished_ids
      WHERE ${finishWaitersAt(tables, now)}
        AND ids IS NOT NULL)`;
}

/** The columns a job loses when it stops running. */
export const RELEASE_COLUMNS = 'locked_by = NULL, lease_until = NULL';

/** Marks a hot statement whose plan does not depend on its parameters: kept prepared (see PostgresStatements). */
export const REUSED: StatementOptions = { reused: true };

/**
 * The parameters of new jobs' columns as the inserts' `unnest` lists them: data, priority, run_at, max_attempts,
 * backoff, timeout_ms, then the statement's own columns (`middle`: a key, a flow's parent...), then name, remove_on,
 * job_group, trace_context. One array per column, one item per job: one place says how a job becomes its row.
 */
export function jobColumnArrays(jobs: NewJobRecord[], middle: unknown[][] = []): unknown[][] {
  return [
    jobs.map((job) => job.data),
    jobs.map((job) => job.priority),
    jobs.map((job) => ms(job.runAt)),
    jobs.map((job) => job.maxAttempts),
    jobs.map((job) => job.backoff),
    jobs.map((job) => job.timeout),
    ...middle,
    jobs.map((job) => job.name ?? null),
    jobs.map((job) => job.removeOn ?? null),
    jobs.map((job) => job.group ?? null),
    jobs.map((job) => job.traceContext ?? null),
  ];
}

/** Times are bound to bigint columns: a fractional ms (a fractional lease or delay) would be rejected. */
export function ms(value: number): number {
  return Math.round(value);
}

/** Orders decimal id strings numerically without losing precision past 2^53. */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Our ids are positive bigints; anything else names no job. Kept as strings: ids may exceed 2^53. */
export function toRowId(id: string): string | null {
  return typeof id === 'string' && /^[1-9]\d{0,17}$/.test(id) ? id : null;
}

/** The valid attempts of `refs` as two parallel arrays (ids, attempts), for `unnest`. */
export function attemptArrays(refs: AttemptRef[]): { ids: string[]; attempts: number[] } {
  const ids: string[] = [];
  const attempts: number[] = [];
  for (const ref of refs) {
    const id = toRowId(ref.id);
    if (id === null) continue;
    ids.push(id);
    attempts.push(ref.attempt);
  }
  return { ids, attempts };
}

/** The `LISTEN`s of the schema's channels, for the notification listener's own connection (one simple query). */
export function listenSql(tables: PostgresTables): string {
  return [tables.channel, tables.finishChannel, tables.eventsChannel].map((channel) => `LISTEN "${channel}"`).join('; ');
}

/**
 * `column` (a JSON array kept as text, NULL for none) with `value` (a jsonb-able SQL expression) appended, its
 * oldest entry dropped once it holds `cap`: the bounded lists a job keeps (`logs`, `runs`), in the statement that
 * adds to them. jsonb only while appending; `cap` and `value` are SQL, bound in that order.
 */
export function cappedAppendSql(column: string, cap: string, value: string): string {
  return `((CASE WHEN jsonb_array_length(COALESCE(${column}::jsonb, '[]'::jsonb)) >= ${cap} THEN ${column}::jsonb - 0
                 ELSE COALESCE(${column}::jsonb, '[]'::jsonb) END) || jsonb_build_array(${value}))::text`;
}

/** What `claimWalk` reads of a queue, and how. */
export interface ClaimWalk {
  /** The columns it returns. */
  columns: string;
  /** The queue's expression (`request.queue`). */
  queue: string;
  /** How many rows it returns: an expression of the statement (`request.lim`). */
  limit: string;
  /** Rows it reads past `limit` (a look-ahead), which its constant bound allows for too. */
  beyond?: number;
  /** The due time: `$3`, or a sub-select of it in a statement the server keeps a generic plan of. */
  due: string;
  /** Locks each row it returns, skipping rows another claim holds. */
  lock: boolean;
}

/**
 * One queue's walk of the claim index in claim order (its due pending jobs), as a sub-select of the claims.
 *
 * The walk is bounded twice. The inner constant (the most one claim ever takes, `LIMITS.batchSize`, plus `beyond`)
 * never binds: it is there for the planner, which prices a LIMIT that is not a constant as a tenth of the rows below
 * it. Without the constant a claim's price grew with the backlog: at a few million due jobs in one queue it passed the
 * server's default `jit_above_cost` (100,000), and every claim paid for JIT compilation (35.8 ms a claim instead of
 * 3.8 with 5 million, bench/pg-claim-plan.js with PG_CLAIM_QUEUES=1). Under the constant the price stops growing once
 * a queue holds that many due jobs. A locking walk still locks its rows one by one as the outer LIMIT pulls them, so a
 * claim locks only what it takes.
 */
export function claimWalk(T: string, walk: ClaimWalk): string {
  const beyond = walk.beyond ?? 0;
  return `(
          SELECT ${walk.columns} FROM (
            SELECT ${walk.columns} FROM ${T}
            WHERE queue = ${walk.queue} AND status = 'pending' AND run_at <= ${walk.due}
            ORDER BY priority DESC, run_at, id
            LIMIT ${LIMITS.batchSize + beyond}${walk.lock ? '\n            FOR UPDATE SKIP LOCKED' : ''}
          ) AS walk
          LIMIT ${walk.limit}${beyond > 0 ? ` + ${beyond}` : ''}
        )`;
}
