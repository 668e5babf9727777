import { JobRecord, NewJobRecord } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { PostgresContext, REUSED, ms, notifyIfAny, perSchema } from './postgres-sql-fragments';

/**
 * Throttled and debounced adds (schema step 10), one statement each (see the SQLite file of the same name). Under
 * READ COMMITTED a window check that sees no open window races only with an insert of the same key, which the unique
 * indexes settle: the later insert waits for the earlier to commit, then skips.
 */
// Every column a plain add writes (`enqueue.sql.ts`), so a keyed job is grouped and traced like any other.
const COLUMNS =
  'queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, name, remove_on, job_group, trace_context';
// Explicit casts: in INSERT ... SELECT the parameters' types are not inferred from the target columns.
const VALUES = `$1::text, 'pending', $2::text, $3::bigint, $4::bigint, 0, $5::bigint, $6::text, $7::double precision, $8::text, $9::int,
  $10::text, $11::text`;

const sql = perSchema((tables) => {
  const { T } = tables;
  return {
    insertThrottled: `WITH inserted AS (
        INSERT INTO ${T} (${COLUMNS}, unique_key, key_until, created_at, updated_at)
        SELECT ${VALUES}, $12::text, $13::bigint, $14::bigint, $14::bigint
        WHERE NOT EXISTS (SELECT 1 FROM ${T} AS held WHERE held.queue = $1 AND held.unique_key = $12 AND held.key_until > $14::bigint)
        ON CONFLICT DO NOTHING
        RETURNING id, run_at
      ), ${notifyIfAny(tables, 'inserted WHERE run_at <= $14')}
      SELECT id FROM inserted WHERE (SELECT count(*) FROM hint) >= 0`,
    keyHolder: `SELECT ${JOB_COLUMNS} FROM ${T}
      WHERE queue = $1 AND unique_key = $2 AND (status IN ('pending', 'running') OR key_until > $3)
      ORDER BY id DESC LIMIT 1`,
    replaceDebounced: `WITH replaced AS (
        UPDATE ${T} SET data = $2, priority = $3, run_at = $4, max_attempts = $5, backoff = $6, timeout_ms = $7, name = $8,
          remove_on = $9, job_group = $10, trace_context = $11, updated_at = $13
        WHERE queue = $1 AND debounce_key = $12 AND status = 'pending' AND started_at IS NULL
        RETURNING ${JOB_COLUMNS}
      ), ${notifyIfAny(tables, 'replaced WHERE run_at <= $13')}
      SELECT * FROM replaced WHERE (SELECT count(*) FROM hint) >= 0`,
    insertDebounced: `WITH inserted AS (
        INSERT INTO ${T} (${COLUMNS}, debounce_key, created_at, updated_at)
        VALUES (${VALUES}, $12::text, $13::bigint, $13::bigint)
        ON CONFLICT DO NOTHING
        RETURNING id, run_at
      ), ${notifyIfAny(tables, 'inserted WHERE run_at <= $13')}
      SELECT id FROM inserted WHERE (SELECT count(*) FROM hint) >= 0`,
  };
});

function values(queue: string, job: NewJobRecord): unknown[] {
  return [
    queue,
    job.data,
    job.priority,
    ms(job.runAt),
    job.maxAttempts,
    job.backoff,
    job.timeout,
    job.name ?? null,
    job.removeOn ?? null,
    job.group ?? null,
    job.traceContext ?? null,
  ];
}

/** See `KeyedBackend.insertThrottled`. */
export async function insertThrottled(db: PostgresContext, queue: string, job: NewJobRecord, now: number): Promise<string | null> {
  const params = [...values(queue, job), job.key, ms(job.keyUntil ?? now), ms(now)];
  const [row] = await db.runner.all(sql(db.tables).insertThrottled, params, REUSED);
  return row ? String(row.id) : null;
}

/** See `KeyedBackend.keyHolder`. */
export async function keyHolder(db: PostgresContext, queue: string, key: string, now: number): Promise<JobRecord | null> {
  const [row] = await db.runner.all(sql(db.tables).keyHolder, [queue, key, ms(now)], REUSED);
  return row ? toJobRecord(row) : null;
}

/** See `KeyedBackend.replaceDebounced`. */
export async function replaceDebounced(db: PostgresContext, queue: string, job: NewJobRecord, now: number): Promise<JobRecord | null> {
  const [row] = await db.runner.all(sql(db.tables).replaceDebounced, [...values(queue, job), job.key, ms(now)], REUSED);
  return row ? toJobRecord(row) : null;
}

/** See `KeyedBackend.insertDebounced`. */
export async function insertDebounced(db: PostgresContext, queue: string, job: NewJobRecord, now: number): Promise<string | null> {
  const [row] = await db.runner.all(sql(db.tables).insertDebounced, [...values(queue, job), job.key, ms(now)], REUSED);
  return row ? String(row.id) : null;
}
