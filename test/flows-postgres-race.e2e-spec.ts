/**
 * The PostgreSQL flow trigger under concurrency: the last two children of a parent finish in two transactions at
 * once. Under READ COMMITTED each would see the other still live and neither would release the parent, which would
 * then wait for ever; the trigger locks the parent row first, so the second waits for the first to commit and then
 * sees it done.
 */
import { DataSource } from 'typeorm';
import { QueueAdmin, QueueProducer } from '../lib';
import { describePostgres, perTestApp, MIGRATED } from './support/backends';
import { postgresTestUrl } from './support/test-backend';
import { waitFor } from './support/wait-for';

describePostgres('flows: two last children finishing at once (PostgreSQL)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('releases the parent exactly when the second of two concurrent transactions commits', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: {},
      children: [
        { queue: 'fetch', data: { n: 1 } },
        { queue: 'fetch', data: { n: 2 } },
      ],
    });
    const [first, second] = (await admin.getJob(parent.id))!.flow!.childrenIds;
    const jobs = `"${current.db.options.postgres!.schema}".nest_queue_jobs`;
    const finish = `UPDATE ${jobs} SET status = 'completed', finished_at = $2, updated_at = $2 WHERE id = $1`;
    const pool = await new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 3 }).initialize();
    const a = pool.createQueryRunner();
    const b = pool.createQueryRunner();
    try {
      await a.startTransaction();
      await b.startTransaction();
      await a.query(finish, [first, Date.now()]);
      // B's trigger waits on A's lock of the parent row (without that lock it would not wait, and see A's child live).
      let bDone = false;
      const bFinish = b.query(finish, [second, Date.now()]).then(() => (bDone = true));
      // Both finishes are in flight before either commits (B's either done or waiting on a lock A holds).
      await waitFor(async () => {
        if (bDone) return true;
        const [row] = (await pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`)) as { n: number }[];
        return row.n > 0;
      }, 'B finished or waits for a lock A holds');
      await a.commitTransaction();
      await bFinish;
      await b.commitTransaction();
    } finally {
      await a.release();
      await b.release();
      await pool.destroy();
    }
    const info = await admin.getJob(parent.id);
    expect(info?.flow).toMatchObject({ pendingChildren: 0, waitingForChildren: false });
    expect(info?.status).toBe('pending');
    expect(info!.runAt.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
