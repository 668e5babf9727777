/**
 * The batched completion, and its read-back of a short batch, must look each row of its batch up by primary key,
 * whatever the file's statistics.
 * With statistics (an operator ran ANALYZE or `PRAGMA optimize`) SQLite preferred the running index and joined the
 * batch against every running row: O(running x batch), about 4x the CPU per job (bench/row-layout.js).
 */
import Database from 'better-sqlite3';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { getSqliteMigrations } from '../lib/storage/sqlite/sqlite-schema';
import { COMPLETED_BY_SQL, COMPLETE_BATCHED_SQL, COMPLETE_MANY_SQL } from '../lib/storage/sqlite/sql/outcomes.sql';

function planOf(db: Database.Database, sql: string): string[] {
  // The read-back binds (items, owner, time); the completions (time, time, items, owner).
  const params = sql === COMPLETED_BY_SQL ? ['[]', 'w', 0] : [0, 0, '[]', 'w'];
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
}

describe('SQLite batched completion plan', () => {
  it.each([
    ['without statistics', false, COMPLETE_MANY_SQL],
    ['after ANALYZE', true, COMPLETE_MANY_SQL],
    ['without statistics, with batch sizes', false, COMPLETE_BATCHED_SQL],
    ['after ANALYZE, with batch sizes', true, COMPLETE_BATCHED_SQL],
    ['without statistics, the read-back of a short batch', false, COMPLETED_BY_SQL],
    ['after ANALYZE, the read-back of a short batch', true, COMPLETED_BY_SQL],
  ])('looks each job of the batch up by primary key, %s', (_, analyze, sql) => {
    const db = new Database(':memory:');
    try {
      for (const step of getSqliteMigrations()) for (const statement of step.sql) db.exec(statement);
      const insert = db.prepare(
        `INSERT INTO ${JOBS_TABLE} (queue, status, data, priority, run_at, attempts, max_attempts, locked_by, lease_until, created_at, updated_at)
         VALUES (?, ?, '{}', 0, 0, 1, 3, 'w', ?, 0, 0)`,
      );
      // A backlog and a history, and no job running when the statistics were taken (the running index then looks
      // like the most selective way in).
      for (let i = 0; i < 3000; i++) insert.run(`q${i % 4}`, i % 2 === 0 ? 'pending' : 'completed', null);
      if (analyze) db.exec('ANALYZE');
      const plan = planOf(db, sql);
      expect(plan.join('\n')).toMatch(/SEARCH nest_queue_jobs USING INTEGER PRIMARY KEY/);
      expect(plan.join('\n')).not.toMatch(/_running|_owner|_status|_finished|SCAN nest_queue_jobs/);
    } finally {
      db.close();
    }
  });
});
