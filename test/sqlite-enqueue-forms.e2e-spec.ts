/**
 * A batch insert on SQLite goes as bound VALUES padded to a power of two (better-sqlite3, up to 1,024 rows) or as one
 * JSON parameter (node-sqlite3, and any larger batch). Whatever the form and the padding: one row per job, ids in
 * input order, every column as given, a key a live job holds (or an earlier job of the same batch) skipped, and the
 * padding rows never written.
 */
import { InsertedRow } from '../lib/storage/shared/pair-enqueued';
import { insertJobs } from '../lib/storage/sqlite/sql/enqueue.sql';
import { StatementRunner } from '../lib/storage/shared/statement-runner';
import { describeEachSqlite } from './support/backends';
import { contractStorage, newJob } from './support/storage-contract';

describeEachSqlite('SQLite batch inserts, in either form', (backend) => {
  const s = contractStorage(backend);

  it.each([2, 3, 4, 5, 513, 1024, 1025])('a batch of %i jobs: one row each, ids in input order, every column as given', async (size) => {
    const now = Date.now();
    const jobs = Array.from({ length: size }, (_, i) =>
      newJob({
        data: JSON.stringify({ i }),
        priority: i % 3,
        runAt: now + i,
        maxAttempts: 1 + (i % 4),
        backoff: i % 2 ? '{"type":"fixed","delay":5}' : null,
        timeout: i % 5 ? null : 1000 + i,
        name: i % 7 ? null : `n${i}`,
        group: i % 11 ? undefined : `g${i % 3}`,
      }),
    );
    const stored = await s.storage.enqueue('q', jobs, now);
    expect(stored).toHaveLength(size);
    const ids = stored.map((record) => Number(record.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(size);
    expect((await s.storage.getCounts('q')).reduce((sum, row) => sum + row.count, 0)).toBe(size);
    for (const i of [0, 1, size - 1, Math.floor(size / 2)]) {
      const record = (await s.storage.getJob(stored[i].id))!;
      expect(record).toMatchObject({
        queue: 'q',
        data: JSON.stringify({ i }),
        priority: i % 3,
        runAt: now + i,
        maxAttempts: 1 + (i % 4),
        timeout: i % 5 ? null : 1000 + i,
        name: i % 7 ? null : `n${i}`,
        group: i % 11 ? null : `g${i % 3}`,
      });
    }
  });

  it('skips keys a live job holds and repeats within the batch; the job holding a key comes back for it', async () => {
    const [held] = await s.storage.enqueue('q', [newJob({ key: 'taken' })], Date.now());
    const stored = await s.storage.enqueue(
      'q',
      [newJob({ key: 'a' }), newJob({ key: 'taken' }), newJob({ key: 'a' }), newJob({ key: 'b' }), newJob()],
      Date.now(),
    );
    expect(stored[1].id).toBe(held.id);
    expect(stored[2].id).toBe(stored[0].id);
    expect(new Set(stored.map((record) => record.id)).size).toBe(4);
    expect((await s.storage.getCounts('q')).reduce((sum, row) => sum + row.count, 0)).toBe(4);
  });
});

describe('the VALUES form refused for its bound variables', () => {
  it('falls back to the JSON form, from then on, and writes once', async () => {
    const statements: string[] = [];
    const runner: Pick<StatementRunner, 'all'> = {
      all: async (sql, params) => {
        statements.push(sql.includes('json_each') ? 'json' : 'values');
        if (!sql.includes('json_each')) throw new Error('SQLITE_ERROR: too many SQL variables');
        return JSON.parse(params[3] as string).map((_: unknown, index: number) => ({ id: index + 1, unique_key: null }));
      },
    };
    const jobs = [newJob(), newJob(), newJob()];
    const first: InsertedRow[] = await insertJobs(runner as StatementRunner, 'q', jobs, Date.now(), true);
    expect(first.map((row) => row.id)).toEqual(['1', '2', '3']);
    await insertJobs(runner as StatementRunner, 'q', jobs, Date.now(), true);
    expect(statements).toEqual(['values', 'json', 'json']);
  });
});
