/**
 * `getJobs(queue, { status })` on SQLite reads the table's newest 10,000 rows first and walks the status's index only
 * when they hold less than a page (lib/storage/sqlite/sql/inspect.sql.ts, `recent`): both reads must give the same
 * page, also when the page straddles the end of that range.
 */
import { QueueAdmin, QueueProducer } from '../lib';
import { describeEachSqlite, perTestApp } from './support/backends';

describeEachSqlite('QueueAdmin.getJobs({ status }) past the newest 10,000 rows', (backend) => {
  const current = perTestApp(backend);

  it('gives the newest jobs of the status whether the recent rows hold a full page or not', async () => {
    const app = await current.startApp({ module: { pollInterval: 60_000 } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    // No processor: every job stays pending. One old job of `target`, then 10,000 of another queue, then two more.
    const old = await producer.add('target', { n: 0 });
    for (let start = 0; start < 10_000; start += 1000)
      await producer.addBulk(
        'filler',
        Array.from({ length: 1000 }, (_, i) => ({ data: { n: start + i } })),
      );
    const newer = await producer.add('target', { n: 1 });
    const newest = await producer.add('target', { n: 2 });
    const ids = async (options: { limit: number; offset?: number }) =>
      (await admin.getJobs('target', { status: 'pending', ...options })).map((job) => job.id);

    // A full page among the recent rows: the answer, exactly.
    expect(await ids({ limit: 2 })).toEqual([newest.id, newer.id]);
    // A page that reaches past them: read through the status's index, the old job included.
    expect(await ids({ limit: 3 })).toEqual([newest.id, newer.id, old.id]);
    expect(await ids({ limit: 2, offset: 1 })).toEqual([newer.id, old.id]);
    expect(await ids({ limit: 50, offset: 2 })).toEqual([old.id]);
    expect((await admin.getJobs('filler', { status: 'pending', limit: 1, offset: 9_999 })).map((job) => job.data)).toEqual([{ n: 0 }]);
  });
});
