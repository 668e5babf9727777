/**
 * Lease recovery is one statement over every expired row: one row whose write the database refuses must not stop the
 * recovery of the others. A trigger of the test's own refuses the recovery of one row; the jobs of
 * every other queue whose owner died are still taken back, and the refused one is logged once with its id and queue.
 */
import { ConsoleLogger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueAdmin, QueueProducer } from '../lib';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { defineProcessor } from './fixtures/define-processor';
import { rawQuery } from './support/raw-sqlite';
import { describeEachBackend, perTestApp, TestDatabase, MIGRATED } from './support/backends';
import { shortLeases } from './support/test-timings';
import { waitFor } from './support/wait-for';

/** Runs statements on the test's database through a connection of its own (SQLite file or PostgreSQL schema). */
async function execute(database: TestDatabase, statements: (table: string) => string[]): Promise<void> {
  const postgres = database.options.postgres;
  if (!postgres) {
    for (const statement of statements(JOBS_TABLE)) await rawQuery(database, statement);
    return;
  }
  const dataSource = new DataSource({ type: 'postgres', url: postgres.url, poolSize: 1 });
  await dataSource.initialize();
  try {
    for (const statement of statements(`"${postgres.schema!}".${JOBS_TABLE}`)) await dataSource.query(statement);
  } finally {
    await dataSource.destroy();
  }
}

/** Makes the database refuse any write that takes job `id` out of `running`. */
async function refuseRecoveryOf(database: TestDatabase, id: string): Promise<void> {
  const when = `OLD.id = ${Number(id)} AND NEW.status <> 'running'`;
  if (!database.options.postgres) {
    await rawQuery(
      database,
      `CREATE TRIGGER refuse_recovery BEFORE UPDATE ON ${JOBS_TABLE} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'recovery refused'); END`,
    );
    return;
  }
  const schema = `"${database.options.postgres.schema!}"`;
  await execute(database, (table) => [
    `CREATE FUNCTION ${schema}.refuse_recovery() RETURNS trigger LANGUAGE plpgsql AS ` +
      `$$ BEGIN RAISE EXCEPTION 'recovery refused' USING ERRCODE = '22003'; END $$`,
    `CREATE TRIGGER refuse_recovery BEFORE UPDATE ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${schema}.refuse_recovery()`,
  ]);
}

describeEachBackend('lease recovery with a row the database refuses', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('recovers the expired jobs of every other queue, and logs the refused one once with its id and queue', async () => {
    const producer = (current.app = await current.startApp({ module: { processing: false } })).get(QueueProducer);
    const jobs = [
      ...(await producer.addBulk('a', [{ data: 1 }, { data: 2 }])),
      ...(await producer.addBulk('b', [{ data: 3 }, { data: 4 }])),
    ];
    await current.close(current.app);
    // What a process killed -9 leaves: its jobs running under leases that ran out long ago.
    await execute(current.db, (table) => [
      `UPDATE ${table} SET status = 'running', attempts = 1, locked_by = 'killed-worker', lease_until = 1, started_at = 1`,
    ]);
    const poisoned = jobs[2];
    await refuseRecoveryOf(current.db, poisoned.id);

    const logger = new ConsoleLogger();
    const errors: string[] = [];
    jest.spyOn(logger, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
    jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    current.app = await current.startApp({
      logger,
      module: shortLeases(backend),
      // Lease recovery runs in processes that process; this queue has no jobs.
      providers: [defineProcessor('idle', async () => undefined)],
    });
    const admin = current.app.get(QueueAdmin);
    const others = jobs.filter((job) => job !== poisoned);
    await waitFor(
      async () =>
        (await Promise.all(others.map(async (job) => (await admin.getJob(job.id))?.status))).every((status) => status === 'pending'),
      'the other jobs are recovered',
    );
    expect((await admin.getJob(poisoned.id))?.status).toBe('running');
    const about = errors.filter((line) => line.includes(`Job ${poisoned.id} (queue b)`));
    expect(about).toHaveLength(1);
    expect(about[0]).toContain('recovery refused');
  });
});
