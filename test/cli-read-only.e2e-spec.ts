/**
 * The CLI's promises about what it does not do: a dry run and every reading command change no byte of a SQLite
 * file (not even its journal mode), a reader that stops early (`… | head`) ends the command quietly, and a name or id
 * that names nothing is answered with the exit code the docs give (a queue nothing knows: 4; an id that cannot be
 * one: 2, a bad command line).
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueueAdmin, QueueNotFoundError, QueueProducer } from '../lib';
import { EXIT_CODES } from '../lib/cli/exit-codes';
import { BACKENDS_BY_NAME, BackendName, TestDatabase, compileTestApp } from './support/backends';
import { scriptArgs } from './support/child-app';
import { runCliInProcess } from './support/cli-in-process';
import { queryDatabase } from './support/ops';
import { createLegacyDatabase } from './fixtures/legacy-schema';
import { expectExit, fileHash } from './support/cli-expect';

const ROOT = join(__dirname, '..');

async function journalMode(db: TestDatabase): Promise<string> {
  const [row] = await queryDatabase<{ journal_mode: string }>(db, 'PRAGMA journal_mode');
  return row.journal_mode;
}

/** A queue database with `count` pending jobs of queue `mail`, switched back to rollback-journal mode (as a copy made by other tools may be). */
async function rollbackJournalQueueFile(db: TestDatabase, count: number): Promise<string[]> {
  const app = await compileTestApp(db, { module: { processing: false } });
  await app.init();
  const ids: string[] = [];
  try {
    const producer = app.get(QueueProducer);
    for (let i = 0; i < count; i += 500) {
      const batch = Array.from({ length: Math.min(500, count - i) }, (_, n) => ({ data: { n: i + n, text: 'x'.repeat(200) } }));
      ids.push(...(await producer.addBulk('mail', batch)).map((job) => job.id));
    }
  } finally {
    await app.close();
  }
  await queryDatabase(db, 'PRAGMA journal_mode = DELETE');
  expect(await journalMode(db)).toBe('delete');
  return ids;
}

const SQLITE_DRIVERS: BackendName[] = ['sqlite3', 'better-sqlite3'];

describe.each(SQLITE_DRIVERS)('the CLI on %s: reading commands and dry runs change nothing', (driver) => {
  let db: TestDatabase;
  beforeEach(() => (db = BACKENDS_BY_NAME[driver].tempDatabase()));
  afterEach(() => db.cleanup());
  const args = () => ['--database', db.path, '--driver', driver];

  it('status, jobs and job leave a rollback-journal file byte for byte as it was, journal mode included', async () => {
    const [first] = await rollbackJournalQueueFile(db, 3);
    const before = fileHash(db.path);
    expectExit(await runCliInProcess(['status', ...args()]), EXIT_CODES.ok);
    expectExit(await runCliInProcess(['jobs', 'mail', '--json', ...args()]), EXIT_CODES.ok);
    const job = await runCliInProcess(['job', first, ...args()]);
    expectExit(job, EXIT_CODES.ok);
    expect(job.stdout).toContain('pending');
    expect(fileHash(db.path)).toBe(before);
    expect(await journalMode(db)).toBe('delete');
  });

  it('migrate --dry-run on an old schema prints the steps and leaves the file as it was; on an empty file too', async () => {
    await createLegacyDatabase(db);
    await queryDatabase(db, 'PRAGMA journal_mode = DELETE');
    const before = fileHash(db.path);
    const run = await runCliInProcess(['migrate', '--dry-run', ...args()]);
    expectExit(run, EXIT_CODES.ok);
    const [, at, to] = /^-- schema at version (\d+); these steps bring it to (\d+)/m.exec(run.stdout)!.map(Number);
    // Each step still to apply, once, in order: none the file is already at.
    const steps = [...run.stdout.matchAll(/^-- step (\d+): /gm)].map((match) => Number(match[1]));
    expect(steps).toEqual(Array.from({ length: to - at }, (_, i) => at + 1 + i));
    expect(fileHash(db.path)).toBe(before);
    expect(await journalMode(db)).toBe('delete');

    const empty = join(db.dir, 'empty.sqlite');
    writeFileSync(empty, '');
    const dry = await runCliInProcess(['migrate', '--dry-run', '--database', empty, '--driver', driver]);
    expectExit(dry, EXIT_CODES.ok);
    expect(dry.stdout).toMatch(/^-- schema at version 0; these steps bring it to \d+/m);
    expect(statSync(empty).size).toBe(0);
  });

  it('a queue nothing knows: jobs exits 4 naming the closest queue; redrive refuses it; a malformed id exits 2', async () => {
    await rollbackJournalQueueFile(db, 1);
    expectExit(await runCliInProcess(['jobs', 'maill', ...args()]), EXIT_CODES.notFound, /QueueNotFoundError.*Did you mean queue "mail"/);
    // A known queue with no job of the status asked for is an answer, not an error.
    const none = await runCliInProcess(['jobs', 'mail', '--status', 'failed', ...args()]);
    expectExit(none, EXIT_CODES.ok);
    expect(none.stdout).toBe('no failed job in queue mail\n');
    for (const [command, id] of [
      ['job', 'abc'],
      ['job', 'job-7'],
      ['retry', '1.5'],
      ['cancel', '0x10'],
      ['job', '0'],
      // Not job 7: the id as written names no job the storage gave.
      ['job', '007'],
    ]) {
      expectExit(await runCliInProcess([command, id, ...args()]), EXIT_CODES.usage, /CliUsageError.*a job id is a positive integer/);
    }
    expectExit(await runCliInProcess(['job', '999999', ...args()]), EXIT_CODES.notFound, /JobNotFoundError/);

    const app = await compileTestApp(db, { module: { processing: false } });
    await app.init();
    try {
      await expect(app.get(QueueAdmin).redrive('no-such-dead-letters')).rejects.toThrow(QueueNotFoundError);
    } finally {
      await app.close();
    }
  });
});

describe('the CLI as a process, piped into a reader that stops early', () => {
  let db: TestDatabase;
  beforeEach(() => (db = BACKENDS_BY_NAME.sqlite3.tempDatabase()));
  afterEach(() => db.cleanup());

  it('jobs --json | head -c 100: exits 0 with nothing on stderr (no EPIPE stack trace)', async () => {
    // About 300 KB of JSON, several times a pipe's buffer: the reader is gone long before the last write.
    await rollbackJournalQueueFile(db, 1000);
    const node = [process.execPath, ...scriptArgs('lib/cli/main.ts')].map((part) => `'${part}'`).join(' ');
    const script = `${node} jobs mail --json --limit 1000 --database '${db.path}' 2>"$ERR" | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const errPath = join(db.dir, 'stderr.txt');
    const exit = await new Promise<string>((resolve, reject) => {
      const shell = spawn('bash', ['-c', script], {
        cwd: ROOT,
        env: { ...process.env, ERR: errPath, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      shell.on('error', reject);
      shell.on('close', () => resolve(out.trim()));
    });
    expect(readFileSync(errPath, 'utf8')).toBe('');
    expect(exit).toBe('0');
  });
});
