/**
 * A database that cannot be opened or written fails `app.init()` with a `DatabaseOpenError` that names the SQLite
 * file or the PostgreSQL server and the likely cause, keeps the driver's error as `cause`, and changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Test, TestingModule } from '@nestjs/testing';
import { DatabaseOpenError, Processor, QueueProcessor, SqliteQueueModule, SqliteQueueModuleOptions, SqliteQueueError } from '../lib';
import { TestDatabase, describeEachSqlite, describePostgres } from './support/backends';
import { scriptArgs } from './support/child-app';

@Processor('open-check')
class OpenCheckProcessor implements QueueProcessor {
  async process(): Promise<void> {}
}

/** Boots an app with these options; returns the error `app.init()` rejected with. */
async function bootError(options: SqliteQueueModuleOptions): Promise<DatabaseOpenError> {
  let app: TestingModule | undefined;
  try {
    app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot(options)], providers: [OpenCheckProcessor] }).compile();
    await app.init();
  } catch (error) {
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error).toBeInstanceOf(SqliteQueueError);
    expect((error as DatabaseOpenError).cause).toBeDefined();
    return error as DatabaseOpenError;
  } finally {
    await app?.close().catch(() => undefined);
  }
  throw new Error('app.init() succeeded');
}

const runningAsRoot = process.getuid?.() === 0;

/** What test/fixtures/boot-error-app.ts reports of a boot. */
interface BootReport {
  booted?: true;
  isDatabaseOpenError?: boolean;
  isQueueError?: boolean;
  hasCause?: boolean;
  kind?: string;
  message?: string;
}

/**
 * Boots in a child process that keeps root's identity but not its power over file modes: root writes read-only files
 * anyway, so the child runs without `CAP_DAC_OVERRIDE` and `CAP_DAC_READ_SEARCH` (setpriv drops them from the
 * bounding set before exec). It still reads the checkout as its owner, wherever the checkout sits (another user
 * could not enter a clone under a private folder such as `mktemp -d` makes).
 */
function bootWithoutFileOverride(db: TestDatabase): BootReport {
  const run = spawnSync(
    'setpriv',
    [
      '--bounding-set=-dac_override,-dac_read_search',
      process.execPath,
      ...scriptArgs('test/fixtures/boot-error-app.ts'),
      JSON.stringify(db.options),
    ],
    { cwd: join(__dirname, '..'), encoding: 'utf8', timeout: 60_000 },
  );
  const line = run.stdout.split('\n').find((text) => text.startsWith('RESULT '));
  if (!line) throw new Error(`the boot without file-mode override printed no result (status ${run.status}): ${run.stderr || run.error}`);
  return JSON.parse(line.slice('RESULT '.length)) as BootReport;
}

describeEachSqlite('SQLite file that cannot be opened or written', (backend) => {
  let db: TestDatabase;
  beforeEach(() => (db = backend.tempDatabase()));
  afterEach(() => db.cleanup());
  const sqlite = (database: string): SqliteQueueModuleOptions => ({ database, driver: backend.driver });

  it('a file that is not a database: not-a-database, the path named, the file untouched', async () => {
    const content = 'these are not the pages of a SQLite database\n'.repeat(200);
    writeFileSync(db.path, content);
    const error = await bootError(sqlite(db.path));
    expect(error.kind).toBe('not-a-database');
    expect(error.message).toContain(db.path);
    expect(error.message).toMatch(/not a SQLite database/);
    expect(readFileSync(db.path, 'utf8')).toBe(content);
  });

  it('a path that is a folder: cannot-open, the path named', async () => {
    mkdirSync(db.path);
    const error = await bootError(sqlite(db.path));
    expect(error.kind).toBe('cannot-open');
    expect(error.message).toContain(db.path);
    expect(error.message).toMatch(/folder/);
  });

  it('a path under a file: cannot-open, the path named, the file untouched', async () => {
    writeFileSync(db.path, 'x');
    const path = join(db.path, 'queue.sqlite');
    const error = await bootError(sqlite(path));
    expect(error.kind).toBe('cannot-open');
    expect(error.message).toContain(path);
    expect(readFileSync(db.path, 'utf8')).toBe('x');
  });

  it('a read-only file fails at boot (not on every poll): the path named, nothing written', async () => {
    // A queue file made by an earlier run (WAL mode, schema in place), then made read-only.
    const first = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot(sqlite(db.path))] }).compile();
    await first.init();
    await first.close();
    const before = readFileSync(db.path);
    const files = [db.path, `${db.path}-wal`, `${db.path}-shm`].filter((file) => existsSync(file));
    files.forEach((file) => chmodSync(file, 0o444));
    try {
      if (runningAsRoot) {
        const report = bootWithoutFileOverride(db);
        expect(report).toMatchObject({ isDatabaseOpenError: true, isQueueError: true, hasCause: true, kind: 'read-only' });
        expect(report.message).toContain(db.path);
      } else {
        const error = await bootError(sqlite(db.path));
        expect(error.kind).toBe('read-only');
        expect(error.message).toContain(db.path);
      }
      expect(readFileSync(db.path).equals(before)).toBe(true);
    } finally {
      files.forEach((file) => chmodSync(file, 0o644));
    }
  });
});

describePostgres('PostgreSQL server that cannot be reached', () => {
  it('a closed port: connection-refused, host and port named', async () => {
    const error = await bootError({ postgres: { url: 'postgres://postgres@127.0.0.1:1/test' } });
    expect(error.kind).toBe('connection-refused');
    expect(error.message).toContain('127.0.0.1:1/test');
  });

  it('an unknown database: database-missing, the database named', async () => {
    const error = await bootError({ postgres: { url: 'postgres://postgres@127.0.0.1:5432/no_such_queue_db' } });
    expect(error.kind).toBe('database-missing');
    expect(error.message).toContain('127.0.0.1:5432/no_such_queue_db');
  });

  it('the password is never in the message', async () => {
    const error = await bootError({ postgres: { url: 'postgres://postgres:s3cret-pw@127.0.0.1:1/test' } });
    expect(error.message).not.toContain('s3cret-pw');
  });
});
