/**
 * The PostgreSQL dependency triggers under concurrency (READ COMMITTED). Two dependencies of one job that end in two
 * transactions at once would each see the other still live and release nobody: the end locks the dependents first, so
 * the second waits for the first to commit and then sees it ended. An add whose dependency ends meanwhile must read
 * the end once it is committed, and an end must see the edges of an add committed before it.
 */
import { DataSource, QueryRunner } from 'typeorm';
import { QueueAdmin, QueueProducer } from '../lib';
import { describePostgres, perTestApp, MIGRATED } from './support/backends';
import { postgresTestUrl } from './support/test-backend';
import { waitFor } from './support/wait-for';

describePostgres('job dependencies: ends and adds racing (PostgreSQL)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let pool: DataSource | undefined;
  const runners: QueryRunner[] = [];

  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.release();
    await pool?.destroy();
    pool = undefined;
  });

  async function setUp() {
    const app = await current.startApp({ module: { processing: false } });
    pool = await new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 4 }).initialize();
    const jobs = `"${current.db.options.postgres!.schema}".nest_queue_jobs`;
    const finish = `UPDATE ${jobs} SET status = 'completed', finished_at = $2, updated_at = $2 WHERE id = $1`;
    const runner = async () => {
      const created = pool!.createQueryRunner();
      runners.push(created);
      await created.startTransaction();
      return created;
    };
    /** Resolves once some statement waits for a lock (or `done` says the awaited one ended). */
    const waitingOnLock = (done: () => boolean) =>
      waitFor(async () => {
        if (done()) return true;
        const [row] = (await pool!.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`)) as { n: number }[];
        return row.n > 0;
      }, 'the second statement ended or waits for a lock the first holds');
    return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin), finish, runner, waitingOnLock };
  }

  it('releases the dependent once the second of two dependencies ending at once commits', async () => {
    const { producer, admin, finish, runner, waitingOnLock } = await setUp();
    const first = await producer.add('fetch', {});
    const second = await producer.add('fetch', {});
    const dependent = await producer.add('report', {}, { dependsOn: [first.id, second.id] });
    const a = await runner();
    const b = await runner();
    await a.query(finish, [first.id, Date.now()]);
    let bDone = false;
    const bFinish = b.query(finish, [second.id, Date.now()]).then(() => (bDone = true));
    await waitingOnLock(() => bDone);
    await a.commitTransaction();
    await bFinish;
    await b.commitTransaction();
    const info = await admin.getJob(dependent.id);
    expect(info?.status).toBe('pending');
    expect(await admin.explain(dependent.id)).toMatchObject({ reason: 'no-processor' });
  });

  it('an add whose dependency ends in a transaction still open reads the end once it commits', async () => {
    const { producer, admin, finish, runner, waitingOnLock } = await setUp();
    const dependency = await producer.add('fetch', {});
    const a = await runner();
    await a.query(finish, [dependency.id, Date.now()]);
    let added = false;
    const adding = producer.add('report', {}, { dependsOn: [dependency.id] }).then((job) => {
      added = true;
      return job;
    });
    await waitingOnLock(() => added);
    await a.commitTransaction();
    const dependent = await adding;
    expect((await admin.explain(dependent.id)).reason).toBe('no-processor');
  });

  it('an end that waits for an add still open sees its edges, and releases the dependent', async () => {
    const { producer, admin, finish, runner, waitingOnLock } = await setUp();
    const dependency = await producer.add('fetch', {});
    const b = await runner();
    const dependent = await producer.add('report', {}, { dependsOn: [dependency.id], manager: b.manager });
    let ended = false;
    const ending = pool!.query(finish, [dependency.id, Date.now()]).then(() => (ended = true));
    await waitingOnLock(() => ended);
    await b.commitTransaction();
    await ending;
    const info = await admin.getJob(dependent.id);
    expect(info?.status).toBe('pending');
    expect((await admin.explain(dependent.id)).reason).toBe('no-processor');
  });
});
