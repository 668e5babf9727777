/**
 * `QueueAdmin.backup()` copies a live SQLite queue file consistently while jobs are processed; it never overwrites
 * a file; on PostgreSQL it points to pg_dump.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import {
  BackupNotSupportedError,
  InvalidArgumentError,
  Job,
  Processor,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  SqliteQueueModule,
  JOBS_TABLE,
} from '../lib';
import { describeEachSqlite, describePostgres, perTestApp, MIGRATED } from './support/backends';
import { rawQuery } from './support/raw-sqlite';
import { waitFor } from './support/wait-for';

const JOBS = 300;
let processed = 0;

@Processor('backed-up', { concurrency: 4 })
class BackedUpProcessor implements QueueProcessor<{ n: number }, number> {
  async process(job: Job<{ n: number }>): Promise<number> {
    processed++;
    await new Promise((resolve) => setImmediate(resolve));
    return job.data.n;
  }
}

describeEachSqlite('QueueAdmin.backup() on SQLite', (backend) => {
  const t = perTestApp(backend, MIGRATED);
  beforeEach(() => (processed = 0));

  async function start(): Promise<{ admin: QueueAdmin; producer: QueueProducer }> {
    t.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...t.db.options, pollInterval: 50 })],
      providers: [BackedUpProcessor],
    }).compile();
    await t.app.init();
    return { admin: t.app.get(QueueAdmin), producer: t.app.get(QueueProducer) };
  }

  it('copies the live file while jobs are processed: every job present, integrity ok', async () => {
    const { admin, producer } = await start();
    const added = await producer.addBulk(
      'backed-up',
      Array.from({ length: JOBS }, (_, n) => ({ data: { n } })),
    );
    await waitFor(() => processed > 0, 'processing started');
    const copy = join(t.db.path, '..', 'backup.sqlite');
    const copyDb = { ...t.db, path: copy };
    await admin.backup(copy);
    expect(processed).toBeLessThan(JOBS); // the premise: the copy was made while jobs were still being processed

    expect(await rawQuery(copyDb, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    const rows = await rawQuery<{ id: number }>(copyDb, `SELECT id FROM ${JOBS_TABLE} WHERE queue = 'backed-up'`);
    expect(rows.map((row) => String(row.id)).sort()).toEqual(added.map((job) => job.id).sort());
    // A self-contained file: no -wal beside it to carry along.
    expect(existsSync(`${copy}-wal`)).toBe(false);
    await waitFor(async () => (await admin.getCounts('backed-up')).completed === JOBS, 'every job completed in the live file');
  });

  it('refuses an existing destination with InvalidArgumentError and leaves it untouched', async () => {
    const { admin } = await start();
    const existing = join(t.db.path, '..', 'existing.sqlite');
    writeFileSync(existing, 'keep me');
    await expect(admin.backup(existing)).rejects.toThrow(InvalidArgumentError);
    await expect(admin.backup(existing)).rejects.toThrow(existing);
    expect(readFileSync(existing, 'utf8')).toBe('keep me');
  });

  it.each([[''], [':memory:'], [42]])('refuses %p as destination', async (destination) => {
    const { admin } = await start();
    await expect(admin.backup(destination as string)).rejects.toThrow(InvalidArgumentError);
  });
});

describePostgres('QueueAdmin.backup() on PostgreSQL', (backend) => {
  const t = perTestApp(backend, MIGRATED);

  it('throws BackupNotSupportedError naming pg_dump, and writes no file', async () => {
    t.app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...t.db.options })] }).compile();
    await t.app.init();
    const copy = join(t.db.path, '..', 'backup.sqlite');
    await expect(t.app.get(QueueAdmin).backup(copy)).rejects.toThrow(BackupNotSupportedError);
    await expect(t.app.get(QueueAdmin).backup(copy)).rejects.toThrow(/pg_dump/);
    expect(existsSync(copy)).toBe(false);
  });
});
