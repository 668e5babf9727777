import { StatementRunner } from '../../shared/statement-runner';
import { Q, T } from './sqlite-sql-fragments';

/** Records each queue's dead-letter queue (null clears it), creating the queue's row if needed. */
const DECLARE_DEAD_LETTERS_SQL = `INSERT INTO ${Q} (queue, paused, updated_at, dead_letter)
  SELECT j.value ->> 0, 0, ?, j.value ->> 1 FROM json_each(?) AS j WHERE true
  ON CONFLICT (queue) DO UPDATE SET dead_letter = excluded.dead_letter, updated_at = excluded.updated_at`;

/**
 * Redrive in one statement: each dead letter becomes, in place, a fresh job of the queue it came from (attempts 0, due
 * now, no error, no origin, no run history), so it leaves the dead-letter queue exactly as it arrives in its own. Running dead letters
 * (a processor of the dead-letter queue has them) are left alone. Params: now, now, dead-letter queue, limit.
 */
const REDRIVE_SQL = `/* redrive */ UPDATE ${T}
  SET queue = origin ->> '$.queue', status = 'pending', attempts = 0, run_at = ?, origin = NULL, error = NULL, result = NULL,
      progress = NULL, logs = NULL, snoozes = 0, runs = NULL, run_batch = NULL, started_at = NULL, finished_at = NULL, locked_by = NULL, lease_until = NULL, updated_at = ?
  WHERE id IN (SELECT id FROM ${T} WHERE queue = ? AND origin IS NOT NULL AND status IN ('pending', 'failed')
    AND origin ->> '$.queue' IS NOT NULL ORDER BY id LIMIT ?)
  RETURNING id`;

/** The queues named as dead-letter queues, with the queues that name them and the dead letters they hold. */
const DEAD_LETTER_QUEUES_SQL = `SELECT named.queue AS queue, named.sources AS sources,
    (SELECT count(*) FROM ${T} WHERE ${T}.queue = named.queue AND origin IS NOT NULL AND status IN ('pending', 'failed')) AS count
  FROM (SELECT dead_letter AS queue, json_group_array(queue) AS sources FROM ${Q} WHERE dead_letter IS NOT NULL GROUP BY dead_letter) AS named
  ORDER BY named.queue`;

/** See `DeadLetterStorage.declareDeadLetters`. */
export async function declareDeadLetters(
  runner: StatementRunner,
  queues: { queue: string; deadLetter: string | null }[],
  now: number,
): Promise<void> {
  if (queues.length === 0) return;
  await runner.run(DECLARE_DEAD_LETTERS_SQL, [now, JSON.stringify(queues.map(({ queue, deadLetter }) => [queue, deadLetter]))]);
}

/** See `DeadLetterStorage.redrive`. */
export async function redrive(runner: StatementRunner, deadLetterQueue: string, limit: number, now: number): Promise<number> {
  return (await runner.all(REDRIVE_SQL, [now, now, deadLetterQueue, limit])).length;
}

/** See `DeadLetterStorage.deadLetterQueues`. */
export async function deadLetterQueues(runner: StatementRunner): Promise<{ queue: string; sources: string[]; count: number }[]> {
  return (await runner.all(DEAD_LETTER_QUEUES_SQL, [])).map((row) => ({
    queue: String(row.queue),
    sources: (JSON.parse(String(row.sources)) as string[]).sort(),
    count: Number(row.count),
  }));
}
