/**
 * The SQLite file deleted, replaced or corrupted under a running app: the app says so once (with the path and
 * what to do), its health is down, it claims nothing more and `add()` throws `DatabaseUnavailableError`
 * instead of writing jobs nobody would see.
 */
import { copyFileSync, openSync, renameSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DatabaseUnavailableError, Job, Processor, QueueAdmin, QueueProcessor, QueueProducer, SqliteQueueModule } from '../lib';
import { QueueHealthIndicator } from '../lib/terminus';
import { FILE_IDENTITY_CHECK_MS } from '../lib/storage/sqlite/file-identity-watch';
import { describeEachSqlite, perTestApp, MIGRATED } from './support/backends';
import { rawQuery } from './support/raw-sqlite';
import { waitFor } from './support/wait-for';

const POLL = 50;
const started: string[] = [];

@Processor('watched', { concurrency: 2 })
class WatchedProcessor implements QueueProcessor {
  async process(job: Job): Promise<void> {
    started.push(job.id);
  }
}

/** Keeps what the library logs. */
class CapturingLogger implements LoggerService {
  readonly errors: string[] = [];
  log(): void {}
  warn(): void {}
  debug(): void {}
  verbose(): void {}
  error(message: unknown, ...rest: unknown[]): void {
    this.errors.push([message, ...rest].map(String).join(' '));
  }
}

describeEachSqlite('the queue file changes under a running app', (backend) => {
  const t = perTestApp(backend, MIGRATED);
  let logger: CapturingLogger;
  beforeEach(() => {
    started.length = 0;
    logger = new CapturingLogger();
  });

  async function start(): Promise<{ producer: QueueProducer; admin: QueueAdmin; health: QueueHealthIndicator }> {
    t.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...t.db.options, pollInterval: POLL })],
      providers: [WatchedProcessor],
    })
      .setLogger(logger)
      .compile();
    await t.app.init();
    return { producer: t.app.get(QueueProducer), admin: t.app.get(QueueAdmin), health: t.app.get(QueueHealthIndicator) };
  }

  /** Waits until the health check is down, then lets several more checks and poll rounds pass. */
  async function expectLost(health: QueueHealthIndicator, what: RegExp): Promise<void> {
    await waitFor(async () => (await health.isHealthy()).queue.status === 'down', 'health down', 4 * FILE_IDENTITY_CHECK_MS + 5000);
    const result = (await health.isHealthy()).queue;
    expect(result.error).toContain(t.db.path);
    expect(result.error).toMatch(what);
    // Time-based on purpose: the claim is that nothing happens over the next checks and rounds.
    const until = Date.now() + 2 * FILE_IDENTITY_CHECK_MS + 10 * POLL;
    await waitFor(() => Date.now() > until, 'more checks and poll rounds');
  }

  it('deleted: health down naming the path, no more claims, add() throws, one log line', async () => {
    const { producer, health } = await start();
    const first = await producer.add('watched', {});
    await waitFor(() => started.includes(first.id), 'a job processed');
    // Due once the deletion has been noticed: a process still claiming would run it.
    await producer.add('watched', {}, { delay: FILE_IDENTITY_CHECK_MS + 500 });
    rmSync(t.db.path);
    await expectLost(health, /was deleted/);

    expect(started).toEqual([first.id]);
    const error = await producer.add('watched', { n: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect((error as DatabaseUnavailableError).kind).toBe('deleted');
    expect((error as Error).message).toContain(t.db.path);
    await expect(producer.addBulk('watched', [{ data: {} }])).rejects.toThrow(DatabaseUnavailableError);
    expect(logger.errors.filter((line) => line.includes(t.db.path))).toHaveLength(1);
    expect(logger.errors).toHaveLength(1);
  });

  it('replaced by another file: health down, add() throws, one log line', async () => {
    const { producer, health } = await start();
    await producer.add('watched', {});
    const other = `${t.db.path}.other`;
    copyFileSync(t.db.path, other);
    const before = statSync(t.db.path).ino;
    renameSync(other, t.db.path);
    expect(statSync(t.db.path).ino).not.toBe(before);
    await expectLost(health, /was replaced/);

    const error = await producer.add('watched', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect((error as DatabaseUnavailableError).kind).toBe('replaced');
    expect(logger.errors.filter((line) => line.includes('was replaced'))).toHaveLength(1);
  });

  it('corrupted pages: said once with what to do, no error per claim, health down, add() throws', async () => {
    // Fill a file with enough jobs to span many pages, stop, overwrite pages in the middle, start again.
    let { producer } = await start();
    // The pages of the empty schema (tables, indexes, triggers and their definitions in sqlite_master) stay intact:
    // with them damaged the file cannot be opened at all, which is another failure (DatabaseOpenError at boot).
    const [{ page_count: schemaPages }] = await rawQuery<{ page_count: number }>(t.db, 'PRAGMA page_count');
    await producer.addBulk(
      'other',
      Array.from({ length: 2000 }, (_, n) => ({ data: { n, pad: 'x'.repeat(200) } })),
    );
    await t.app!.close();
    t.app = undefined;
    const size = statSync(t.db.path).size;
    const fd = openSync(t.db.path, 'r+');
    // Every page the jobs added (their rows and index entries) is garbage: whichever page a later statement reads
    // first, it is a damaged one (a pattern with intact pages between damaged ones depends on where the schema's
    // pages end and each B-tree's next page lands: a schema step more moved them, and every statement missed).
    const garbage = Buffer.alloc(4096, 0xa5);
    for (let offset = 4096 * schemaPages; offset + garbage.length <= size; offset += 4096)
      writeSync(fd, garbage, 0, garbage.length, offset);
    closeSync(fd);

    const running = await start();
    producer = running.producer;
    const health: QueueHealthIndicator = running.health;
    await producer.add('watched', {}).catch(() => undefined);
    await waitFor(async () => (await health.isHealthy()).queue.status === 'down', 'health down');
    const result = (await health.isHealthy()).queue;
    expect(result.error).toMatch(/corrupted/);
    expect(result.error).toContain('integrity_check');
    const until = Date.now() + 20 * POLL;
    await waitFor(() => Date.now() > until, 'poll rounds');

    const error = await producer.add('watched', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect((error as DatabaseUnavailableError).kind).toBe('corrupt');
    expect(logger.errors.filter((line) => line.includes('integrity_check'))).toHaveLength(1);
    expect(started).toEqual([]);
  });
});
