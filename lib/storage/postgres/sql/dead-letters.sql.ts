import { PostgresContext, REUSED, ms, notifyIfAny, perSchema } from './postgres-sql-fragments';

/** See the SQLite file of the same name. */
const sql = perSchema((tables) => {
  const { T, Q } = tables;
  return {
    declare: `INSERT INTO ${Q} (queue, paused, updated_at, dead_letter)
      SELECT d.queue, false, $1, d.dead_letter FROM unnest($2::text[], $3::text[]) AS d(queue, dead_letter)
      ON CONFLICT (queue) DO UPDATE SET dead_letter = excluded.dead_letter, updated_at = excluded.updated_at`,
    redrive: `WITH moved AS (
        UPDATE ${T}
        SET queue = origin::jsonb ->> 'queue', status = 'pending', attempts = 0, run_at = $1, origin = NULL, error = NULL,
            result = NULL, progress = NULL, logs = NULL, snoozes = 0, runs = NULL, run_batch = NULL, started_at = NULL, finished_at = NULL, locked_by = NULL,
            lease_until = NULL, updated_at = $1
        WHERE id IN (SELECT id FROM ${T} WHERE queue = $2 AND origin IS NOT NULL AND status IN ('pending', 'failed')
          AND origin::jsonb ->> 'queue' IS NOT NULL ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id
      ), ${notifyIfAny(tables, 'moved')}
      SELECT count(*) AS moved FROM moved WHERE (SELECT count(*) FROM hint) >= 0`,
    queues: `SELECT named.queue AS queue, named.sources AS sources,
        (SELECT count(*) FROM ${T} WHERE ${T}.queue = named.queue AND origin IS NOT NULL AND status IN ('pending', 'failed')) AS count
      FROM (SELECT dead_letter AS queue, array_agg(queue ORDER BY queue) AS sources FROM ${Q}
        WHERE dead_letter IS NOT NULL GROUP BY dead_letter) AS named
      ORDER BY named.queue`,
  };
});

/** See `DeadLetterStorage.declareDeadLetters`. */
export async function declareDeadLetters(
  db: PostgresContext,
  queues: { queue: string; deadLetter: string | null }[],
  now: number,
): Promise<void> {
  if (queues.length === 0) return;
  await db.runner.run(sql(db.tables).declare, [ms(now), queues.map((q) => q.queue), queues.map((q) => q.deadLetter)]);
}

/** See `DeadLetterStorage.redrive`. */
export async function redrive(db: PostgresContext, deadLetterQueue: string, limit: number, now: number): Promise<number> {
  const [row] = await db.runner.all(sql(db.tables).redrive, [ms(now), deadLetterQueue, limit], REUSED);
  return Number(row?.moved ?? 0);
}

/** See `DeadLetterStorage.deadLetterQueues`. */
export async function deadLetterQueues(db: PostgresContext): Promise<{ queue: string; sources: string[]; count: number }[]> {
  return (await db.runner.all(sql(db.tables).queues, [])).map((row) => ({
    queue: String(row.queue),
    sources: (row.sources as string[]).map(String),
    count: Number(row.count),
  }));
}
