/**
 * A database written by an earlier 0.1.0 build carries an index on every row's status (queue, status,
 * finished_at), and no migrations table. Boot adopts it as version 1, and migration 2 drops the index and builds
 * the finished-only index in its place; counts, listings and clean() read the same jobs through the new indexes.
 */
import { Test, TestingModule } from '@nestjs/testing';
import { QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { DEPENDENCIES_TABLE, JOBS_TABLE, MIGRATIONS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../lib/table-names.constants';
import { KNOWN_COLUMNS } from '../lib/storage/shared/schema-migration';
import { rawQuery } from './support/raw-sqlite';
import { describeEachSqlite, perTestApp, TestDatabase } from './support/backends';

async function startProducerApp(db: TestDatabase): Promise<TestingModule> {
  const app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...db.options, processing: false })] }).compile();
  await app.init();
  return app;
}

async function indexNames(db: TestDatabase): Promise<string[]> {
  const rows = await rawQuery<{ name: string }>(
    db,
    `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`,
    [JOBS_TABLE],
  );
  return rows.map((row) => row.name);
}

describeEachSqlite('schema upgrade from the status index to the finished index', (backend) => {
  const current = perTestApp(backend);

  it('drops the old index at boot, and counts, lists and cleans finished and pending jobs as before', async () => {
    current.app = await startProducerApp(current.db);
    const jobs = await current.app.get(QueueProducer).addBulk(
      'upgrade',
      Array.from({ length: 6 }, (_, n) => ({ data: { n } })),
    );
    await current.app.close();
    current.app = undefined;
    const [c1, c2, c3, f4] = jobs.map((job) => Number(job.id));
    // What the earlier build's schema and its workers left behind: its index, finished rows, and no migrations
    // table (0.1.0 recorded no versions: boot adopts it by its shape as version 1).
    await rawQuery(current.db, `DROP TABLE ${MIGRATIONS_TABLE}`);
    // Later steps undone too: 0.1.0 had no flows nor queue limits (their triggers and index name the columns, so
    // they go first).
    for (const statement of [
      `DROP TRIGGER ${JOBS_TABLE}_rate_window`,
      `DROP TRIGGER ${JOBS_TABLE}_child_finished`,
      `DROP TRIGGER ${JOBS_TABLE}_child_removed`,
      `DROP INDEX ${JOBS_TABLE}_children`,
      // Step 9's indexes name job_group, which the loop below drops.
      `DROP INDEX ${JOBS_TABLE}_group_claim`,
      `DROP INDEX ${JOBS_TABLE}_groups`,
      // Step 10's trigger and indexes name its columns.
      `DROP TRIGGER ${JOBS_TABLE}_dead_letter`,
      `DROP INDEX ${JOBS_TABLE}_key_window`,
      `DROP INDEX ${JOBS_TABLE}_debounce_key`,
      // Step 16's trigger names job_group.
      `DROP TRIGGER ${JOBS_TABLE}_group_window`,
      // Step 17's triggers name its columns; its table is dropped with them.
      `DROP TRIGGER ${JOBS_TABLE}_dependent_added`,
      `DROP TRIGGER ${JOBS_TABLE}_dependency_finished`,
      `DROP TRIGGER ${JOBS_TABLE}_dependency_removed`,
      `DROP TRIGGER ${JOBS_TABLE}_dependent_removed`,
      `DROP TABLE ${DEPENDENCIES_TABLE}`,
      `ALTER TABLE ${JOBS_TABLE} DROP COLUMN parent_id`,
      `ALTER TABLE ${JOBS_TABLE} DROP COLUMN on_child_failure`,
    ])
      await rawQuery(current.db, statement);
    // Columns later migrations added: a database that recorded no version never had them.
    for (const [table, known] of [
      [JOBS_TABLE, KNOWN_COLUMNS.jobs],
      [QUEUES_TABLE, KNOWN_COLUMNS.queues],
      [SCHEDULES_TABLE, KNOWN_COLUMNS.schedules],
    ] as const) {
      const columns = await rawQuery<{ name: string }>(current.db, `SELECT name FROM pragma_table_info('${table}')`);
      for (const { name } of columns) if (!known.includes(name)) await rawQuery(current.db, `ALTER TABLE ${table} DROP COLUMN ${name}`);
    }
    await rawQuery(current.db, `DROP INDEX ${JOBS_TABLE}_finished`);
    await rawQuery(current.db, `CREATE INDEX ${JOBS_TABLE}_status ON ${JOBS_TABLE} (queue, status, finished_at)`);
    await rawQuery(current.db, `UPDATE ${JOBS_TABLE} SET status = 'completed', finished_at = 1000 WHERE id IN (?, ?, ?)`, [c1, c2, c3]);
    await rawQuery(current.db, `UPDATE ${JOBS_TABLE} SET status = 'failed', finished_at = 1000 WHERE id = ?`, [f4]);
    expect(await indexNames(current.db)).toContain(`${JOBS_TABLE}_status`);

    current.app = await startProducerApp(current.db);
    const names = await indexNames(current.db);
    expect(names).toContain(`${JOBS_TABLE}_finished`);
    expect(names).not.toContain(`${JOBS_TABLE}_status`);

    const admin = current.app.get(QueueAdmin);
    expect(await admin.getCounts('upgrade')).toEqual({ pending: 2, running: 0, completed: 3, failed: 1, cancelled: 0, claimed: 0 });
    expect((await admin.getCounts()).completed).toBe(3);
    expect((await admin.getJobs('upgrade', { status: 'completed' })).map((job) => Number(job.id))).toEqual([c3, c2, c1]);
    expect((await admin.getJobs('upgrade', { status: 'pending' })).map((job) => job.data)).toEqual([{ n: 5 }, { n: 4 }]);
    expect(await admin.clean('upgrade', { status: ['completed', 'pending'] })).toBe(5);
    expect(await admin.getCounts('upgrade')).toEqual({ pending: 0, running: 0, completed: 0, failed: 1, cancelled: 0, claimed: 0 });
  });
});
