/**
 * Lease recovery reads the running jobs through the running index, whatever the file's statistics: the table may hold
 * a backlog and a history of millions of rows, the running ones are a few hundred. The one-by-one fallback's read
 * (after a row the database refuses) ordered by `id` used to walk the whole table in primary-key order.
 */
import Database from 'better-sqlite3';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { getSqliteMigrations } from '../lib/storage/sqlite/sqlite-schema';
import { FIND_EXPIRED_SQL, RECOVER_EXPIRED_SQL } from '../lib/storage/sqlite/sql/leases.sql';

function planOf(db: Database.Database, sql: string, params: unknown[]): string {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
}

describe('SQLite lease recovery plans', () => {
  it.each([
    ['without statistics', false],
    ['after ANALYZE', true],
  ])('reads the expired running jobs through the running index, %s', (_, analyze) => {
    const db = new Database(':memory:');
    try {
      for (const step of getSqliteMigrations()) for (const statement of step.sql) db.exec(statement);
      const insert = db.prepare(
        `INSERT INTO ${JOBS_TABLE} (queue, status, data, priority, run_at, attempts, max_attempts, locked_by, lease_until, created_at, updated_at)
         VALUES (?, ?, '{}', 0, 0, 1, 3, ?, ?, 0, 0)`,
      );
      // A backlog and a history, and a few running jobs.
      for (let i = 0; i < 3000; i++) {
        const status = i % 100 === 0 ? 'running' : i % 2 === 0 ? 'pending' : 'completed';
        insert.run(`q${i % 4}`, status, status === 'running' ? 'w' : null, status === 'running' ? 1_000 + i : null);
      }
      if (analyze) db.exec('ANALYZE');
      for (const plan of [planOf(db, FIND_EXPIRED_SQL, [5_000, '[]']), planOf(db, RECOVER_EXPIRED_SQL, [0, 0, 1, 0, 0, 5_000, '[]'])]) {
        expect(plan).toMatch(/SEARCH nest_queue_jobs USING (COVERING )?INDEX nest_queue_jobs_running/);
        expect(plan).not.toMatch(/SCAN nest_queue_jobs\b/);
      }
      // And the rows it finds are still the oldest first.
      const found = db.prepare(FIND_EXPIRED_SQL).all(5_000, '[]') as { id: number }[];
      expect(found.map((row) => row.id)).toEqual([...found.map((row) => row.id)].sort((a, b) => a - b));
      expect(found).toHaveLength(30);
    } finally {
      db.close();
    }
  });
});
