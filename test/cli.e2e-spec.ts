/**
 * The `nestjs-sqlite-queue` command line against real SQLite files and a real PostgreSQL schema: what each command
 * prints and its exit code, bad command lines, and the databases it must refuse (missing, not a queue database, a
 * schema too new), which it leaves as they were.
 *
 * What a command prints, changes and returns is `runCli`'s logic, run here in the test's process
 * (`runCliInProcess`, with the same assertions): a CLI process loads Nest and TypeORM, seconds on a loaded machine,
 * and most runs of this file were that. The package's `bin` itself, a real OS process from this run's compiled
 * JavaScript (`runCliChild`), runs where the claim is about the process: each exit code a script relies on
 * (0, 2, 3, 4, 5) leaves a process as that code, a database command loads the library in a fresh process and
 * exits, and a process refused a database leaves it as it was. Each process that loads the library costs about a
 * second of CPU, so each of those claims has one process per backend it depends on, no more (see `asProcess`).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Job, QueueAdmin, QueueProducer } from '../lib';
import { EXIT_CODES } from '../lib/cli/exit-codes';
import { defineProcessor } from './fixtures/define-processor';
import { BACKENDS_BY_NAME, Backend, TestDatabase, describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { CliRun, runCliChild } from './support/cli-child';
import { runCliInProcess } from './support/cli-in-process';
import { queryDatabase } from './support/ops';
import { LEGACY_QUEUE, createLegacyDatabase, rawSql } from './fixtures/legacy-schema';
import { expectExit, fileHash } from './support/cli-expect';

/** The CLI's database options for a test database of either backend. */
function databaseArgs(db: TestDatabase): string[] {
  const postgres = db.options.postgres;
  return postgres ? ['--postgres', postgres.url!, '--schema', postgres.schema!] : ['--database', db.path, '--driver', db.options.driver!];
}

const MailProcessor = defineProcessor<{ fail?: boolean }>(
  'mail',
  async (job: Job<{ fail?: boolean }>) => {
    await job.log(`sending ${job.id}`);
    if (job.data.fail) throw new Error('mailbox full');
    return 'sent';
  },
  { maxAttempts: 1 },
);

/** A database with a completed and a failed job of `mail`, then two pending ones no process runs (`later`). */
async function seed(current: ReturnType<typeof perTestApp>): Promise<{ completed: string; failed: string; pending: string[] }> {
  const app = await current.startApp({ providers: [MailProcessor] });
  const producer = app.get(QueueProducer);
  const completed = await producer.add('mail', {});
  const failed = await producer.add('mail', { fail: true });
  await app.get(QueueAdmin).waitUntilIdle('mail', { timeout: 20_000 });
  const pending = [await producer.add('later', { n: 1 }, { key: 'k1' }), await producer.add('later', { n: 2 })];
  await current.close(app);
  return { completed: completed.id, failed: failed.id, pending: pending.map((job) => job.id) };
}

describe('nestjs-sqlite-queue, the command line as a whole', () => {
  it('prints its help with every command and the exit codes, and each command its own --help', async () => {
    // The bin as a process: the help, and exit 0.
    const help = await runCliChild(['--help']);
    expectExit(help, EXIT_CODES.ok);
    for (const command of ['status', 'jobs', 'job', 'retry', 'cancel', 'pause', 'resume', 'clean', 'migrate', 'backup', 'promote']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(help.stdout).toContain('Exit codes: 0 done');
    const jobsHelp = await runCliInProcess(['jobs', '--help']);
    expectExit(jobsHelp, EXIT_CODES.ok);
    expect(jobsHelp.stdout).toContain('Usage: nestjs-sqlite-queue jobs <queue> [--status s] [--search text] [--limit n]');
    const jobHelp = await runCliInProcess(['job', '--help']);
    expect(jobHelp.stdout).toContain('QueueAdmin.explain() as "explain"');
    const promoteHelp = await runCliInProcess(['promote', '--help']);
    expect(promoteHelp.stdout).toContain('--from <file>');
  });

  it('refuses bad command lines with exit code 2 and one line naming the problem', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^$/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['status', '--database', 'x.sqlite', '--bogus'], /status: Unknown option '--bogus'/],
      [['status'], /say which database: --database <file> or --postgres <url>/],
      [['jobs', '--database', 'x.sqlite'], /jobs: needs a queue name/],
      [['jobs', 'mail', '--limit', '0', '--database', 'x.sqlite'], /--limit must be an integer from 1 to 1000, got "0"/],
      [['jobs', 'mail', '--status', 'done', '--database', 'x.sqlite'], /--status must be one of pending, running/],
      [['jobs', 'mail', '--search', '', '--database', 'x.sqlite'], /^error: CliUsageError: .*jobs: --search must not be empty/],
      [['jobs', 'mail', '--search', 'x'.repeat(201), '--database', 'x.sqlite'], /--search must be at most 200 characters, got 201/],
      [['clean', 'mail', '--database', 'x.sqlite'], /needs --older-than/],
      [['clean', 'mail', '--older-than', 'a week', '--database', 'x.sqlite'], /--older-than must be a duration such as 7d/],
      [['retry', '--database', 'x.sqlite'], /needs one job id, or --failed <queue>/],
      [['status', '--database', 'x.sqlite', '--postgres', 'postgres://h/db'], /not both/],
      [['promote', '--from', 'x.sqlite'], /needs --from <sqlite file> and --to <postgres url>/],
      [['status', '--postgres', 'db.internal:5432'], /status: --postgres must be a URL such as postgres:\/\/user:password@host:5432\/db/],
      [['promote', '--from', 'x.sqlite', '--to', 'user:secret@db/queue'], /promote: --to must be a URL such as postgres:\/\//],
      [
        ['promote', '--from', 'x.sqlite', '--to', 'postgres://h/db', '--schema', `s${'x'.repeat(50)}`],
        /promote: --schema must be an identifier of letters, digits and underscores, at most 50 characters, got "sx{50}"/,
      ],
    ];
    const check = (run: CliRun, [args, message]: [string[], RegExp]) => {
      expectExit(run, EXIT_CODES.usage, message);
      if (args.length > 0) expect(run.stderr.trim().split('\n')).toHaveLength(1);
    };
    for (const one of cases) check(await runCliInProcess(one[0]), one);
    // The bin as processes (no database opened: no Nest, no TypeORM loaded, side by side): exit 2 and the same line,
    // for no command, an unknown one, and an option parseArgs refuses.
    const asProcesses = cases.slice(0, 3);
    const runs = await Promise.all(asProcesses.map(([args]) => runCliChild(args)));
    runs.forEach((run, index) => check(run, asProcesses[index]));
  });
});

// The commands run the library's own storage code, which the rest of the suite covers on every driver: here one
// SQLite driver and PostgreSQL.
describeEachBackend(
  'nestjs-sqlite-queue commands',
  (backend: Backend) => {
    const current = perTestApp(backend, MIGRATED);
    // A test starts at most one CLI process at a time (up to 5 s each on the shared 2-core machine under load),
    // beside a seeding app and a few in-process runs; the bound is the one the file had when every run was a process.
    jest.setTimeout(180_000);
    // Which code a process leaves is main.ts's `process.exitCode = code`, the same whatever the backend: exits 4 and 5
    // are processes on SQLite and run in this process on PostgreSQL (the same assertions on the same code). What
    // does depend on the backend stays a process on both: a write (the process must commit it, then close the
    // driver, and exit) and a refused database (exit 3, left as it was).
    const asProcess = backend.kind === 'sqlite' ? runCliChild : runCliInProcess;

    it('status, jobs and job print what the library sees, as text and as JSON', async () => {
      const { completed, failed, pending } = await seed(current);
      const db = current.db;
      // Read-only commands. The bin's exit 4 as a process (on SQLite: see asProcess) beside the others in this
      // process (runs in this process take turns: cli-in-process.ts).
      const [status, missing, json, jobs, listed, job] = await Promise.all([
        runCliInProcess(['status', ...databaseArgs(db)]),
        asProcess(['job', '987654', ...databaseArgs(db)]),
        runCliInProcess(['status', '--json', ...databaseArgs(db)]),
        runCliInProcess(['jobs', 'mail', '--status', 'failed', ...databaseArgs(db)]),
        runCliInProcess(['jobs', 'later', '--json', '--limit', '1', ...databaseArgs(db)]),
        runCliInProcess(['job', completed, ...databaseArgs(db)]),
      ]);
      const found = await runCliInProcess(['jobs', 'mail', '--search', 'MAILBOX', ...databaseArgs(db)]);
      const foundJson = await runCliInProcess(['jobs', 'later', '--search', 'K1', '--json', ...databaseArgs(db)]);
      const none = await runCliInProcess(['jobs', 'mail', '--search', '100%_', ...databaseArgs(db)]);
      const waiting = await runCliInProcess(['job', pending[0], ...databaseArgs(db)]);
      const waitingJson = await runCliInProcess(['job', pending[0], '--json', ...databaseArgs(db)]);
      expectExit(status, EXIT_CODES.ok);
      expect(status.stdout).toMatch(
        /^QUEUE\s+PENDING\s+RUNNING\s+CLAIMED\s+COMPLETED\s+FAILED\s+CANCELLED\s+STATE\s+OLDEST DUE\s+PROCESSOR\s+WORKERS$/m,
      );
      expect(status.stdout).toMatch(/^mail\s+0\s+0\s+0\s+1\s+1\s+0\s+active\s+-\s+/m);
      expect(status.stdout).toMatch(/^later\s+2\s+0\s+0\s+0\s+0\s+0\s+active\s+\d{4}-\d\d-\d\dT/m);

      expectExit(json, EXIT_CODES.ok);
      const parsed = JSON.parse(json.stdout) as {
        queues: { name: string; counts: Record<string, number>; paused: boolean; oldestDue: number | null }[];
      };
      expect(parsed.queues.map((queue) => queue.name)).toEqual(['later', 'mail']);
      expect(parsed.queues[0]).toMatchObject({ counts: { pending: 2 }, paused: false });
      expect(parsed.queues[0].oldestDue).toEqual(expect.any(Number));

      expectExit(jobs, EXIT_CODES.ok);
      expect(jobs.stdout).toMatch(new RegExp(`^${failed}\\s+-\\s+failed\\s+0\\s+1/1\\s.*mailbox full$`, 'm'));
      expect(jobs.stdout).not.toMatch(new RegExp(`^${completed}\\s`, 'm'));
      expect((JSON.parse(listed.stdout) as { id: string }[]).map((one) => one.id)).toEqual([pending[1]]);

      expectExit(job, EXIT_CODES.ok);
      expect(job.stdout).toContain(`job ${completed} in queue mail: completed`);
      expect(job.stdout).toContain('result "sent"');
      expect(job.stdout).toContain(`    sending ${completed}`);
      expect(job.stdout).toMatch(/^ {2}why finished: /m);
      expectExit(missing, EXIT_CODES.notFound, /^error: JobNotFoundError: .*987654/);

      // --search: the library's search (case folded, plain text), as a table and as JSON.
      expectExit(found, EXIT_CODES.ok);
      expect(found.stdout).toMatch(new RegExp(`^${failed}\\s+-\\s+failed\\s`, 'm'));
      expect(found.stdout).not.toMatch(new RegExp(`^${completed}\\s`, 'm'));
      expectExit(foundJson, EXIT_CODES.ok);
      // The unique key matches too (k1 is pending[0]'s).
      expect((JSON.parse(foundJson.stdout) as { id: string }[]).map((one) => one.id)).toEqual([pending[0]]);
      expectExit(none, EXIT_CODES.ok);
      expect(none.stdout).toBe('no job matching "100%_" in queue mail\n');

      // job <id> explains: no process announced a processor for 'later'.
      expectExit(waiting, EXIT_CODES.ok);
      expect(waiting.stdout).toMatch(/^ {2}why no-processor: \S.*$/m);
      expectExit(waitingJson, EXIT_CODES.ok);
      const explained = (JSON.parse(waitingJson.stdout) as { explain: { status: string; reason: string; detail: string } }).explain;
      expect(explained).toMatchObject({ status: 'pending', reason: 'no-processor', detail: expect.stringMatching(/\S/) });
    });

    it('retry, cancel, pause, resume and clean change the database through QueueAdmin, with their exit codes', async () => {
      const { failed, pending } = await seed(current);
      const db = current.db;
      const statusOf = async (id: string) =>
        (await rawSql<{ status: string }>(db, [`SELECT status FROM {schema}.nest_queue_jobs WHERE id = ${id}`]))[0].status;
      const pausedOf = async (queue: string) =>
        (await rawSql<{ paused: unknown }>(db, [`SELECT paused FROM {schema}.nest_queue_queues WHERE queue = '${queue}'`])).map((row) =>
          Boolean(Number(row.paused) || row.paused === true),
        );

      // Independent changes on one database: a change made by a process (it loads the library, writes, exits 0)
      // beside the others run in this process.
      const [retried, cancelled, paused] = await Promise.all([
        runCliChild(['retry', failed, ...databaseArgs(db)]),
        runCliInProcess(['cancel', pending[0], ...databaseArgs(db)]),
        runCliInProcess(['pause', 'later', ...databaseArgs(db)]),
      ]);
      [retried, cancelled, paused].forEach((run) => expectExit(run, EXIT_CODES.ok));
      expect(await statusOf(failed)).toBe('pending');
      expect(await statusOf(pending[0])).toBe('cancelled');
      expect(await pausedOf('later')).toEqual([true]);

      // The bin's exit 5 (refused by the state) as a process (on SQLite: see asProcess).
      const [again, unknownQueue, resumed, keep] = await Promise.all([
        asProcess(['retry', failed, ...databaseArgs(db)]),
        runCliInProcess(['retry', '--failed', 'maill', ...databaseArgs(db)]),
        runCliInProcess(['resume', 'later', ...databaseArgs(db)]),
        runCliInProcess(['clean', 'mail', '--older-than', '1d', ...databaseArgs(db)]),
      ]);
      expectExit(again, EXIT_CODES.refused, /InvalidJobStateError/);
      expectExit(unknownQueue, EXIT_CODES.notFound, /QueueNotFoundError.*"mail"/);
      expectExit(resumed, EXIT_CODES.ok);
      expect(await pausedOf('later')).toEqual([false]);
      expectExit(keep, EXIT_CODES.ok);
      expect(keep.stdout).toBe('queue mail: 0 job(s) deleted\n');
      const cleaned = await runCliInProcess(['clean', 'mail', '--older-than', '0ms', ...databaseArgs(db)]);
      expect(cleaned.stdout).toBe('queue mail: 1 job(s) deleted\n');
      const left = await rawSql<{ n: number | string }>(db, [`SELECT count(*) AS n FROM {schema}.nest_queue_jobs WHERE queue = 'mail'`]);
      expect(Number(left[0].n)).toBe(1);
    });

    it('retry of a cancelled debounced job whose key another job holds exits as refused, with JobKeyConflictError', async () => {
      const app = await current.startApp({ module: { processing: false } });
      const producer = app.get(QueueProducer);
      const cancelled = await producer.add('digest', { n: 1 }, { key: 'daily', debounce: true });
      await app.get(QueueAdmin).cancel(cancelled.id);
      const holder = await producer.add('digest', { n: 2 }, { key: 'daily', debounce: true });
      await current.close(app);

      const run = await runCliInProcess(['retry', cancelled.id, ...databaseArgs(current.db)]);
      expectExit(run, EXIT_CODES.refused, new RegExp(`JobKeyConflictError: .*job ${holder.id} \\(pending\\) holds this key`));
    });

    it('the defaults their help states: jobs lists 50 without --limit; clean without --status deletes cancelled jobs too', async () => {
      const app = await current.startApp({ module: { processing: false } });
      const added = await app.get(QueueProducer).addBulk(
        'many',
        Array.from({ length: 51 }, (_, n) => ({ data: { n } })),
      );
      await app.get(QueueAdmin).cancel(added[0].id);
      await current.close(app);

      const listed = await runCliInProcess(['jobs', 'many', '--json', ...databaseArgs(current.db)]);
      expectExit(listed, EXIT_CODES.ok);
      const ids = (JSON.parse(listed.stdout) as { id: string }[]).map((job) => job.id);
      expect(ids).toEqual(
        added
          .slice(1)
          .map((job) => job.id)
          .reverse(),
      );
      const cleaned = await runCliInProcess(['clean', 'many', '--older-than', '0ms', ...databaseArgs(current.db)]);
      expectExit(cleaned, EXIT_CODES.ok);
      expect(cleaned.stdout).toBe('queue many: 1 job(s) deleted\n');
    });

    it('cancel --cascade cancels the live descendants of the job in its flow too; without it, the job alone', async () => {
      const app = await current.startApp({ module: { processing: false } });
      const producer = app.get(QueueProducer);
      const cascaded = await producer.addFlow({ queue: 'assemble', data: { n: 1 }, children: [{ queue: 'part', data: { n: 1 } }] });
      const alone = await producer.addFlow({ queue: 'assemble', data: { n: 2 }, children: [{ queue: 'part', data: { n: 2 } }] });
      await current.close(app);

      expectExit(await runCliInProcess(['cancel', cascaded.id, '--cascade', ...databaseArgs(current.db)]), EXIT_CODES.ok);
      expectExit(await runCliInProcess(['cancel', alone.id, ...databaseArgs(current.db)]), EXIT_CODES.ok);
      const rows = await rawSql<{ parent_id: unknown; status: string }>(current.db, [
        `SELECT parent_id, status FROM {schema}.nest_queue_jobs WHERE queue = 'part' ORDER BY id`,
      ]);
      expect(rows.map((row) => [String(row.parent_id), row.status])).toEqual([
        [cascaded.id, 'cancelled'],
        [alone.id, 'pending'],
      ]);
    });

    it("status names the worker holding a queue's jobs when every one of them is claimed ahead, none started", async () => {
      const app = await current.startApp({ module: { processing: false } });
      const job = await app.get(QueueProducer).add('ahead', { n: 1 });
      await current.close(app);
      // As a process with a lookahead (prefetch) leaves it: running, leased, no start yet.
      await rawSql(current.db, [
        `UPDATE {schema}.nest_queue_jobs SET status = 'running', attempts = 1, locked_by = 'w-ahead', lease_until = ${Date.now() + 600_000} WHERE id = ${job.id}`,
      ]);
      const run = await runCliInProcess(['status', '--json', ...databaseArgs(current.db)]);
      expectExit(run, EXIT_CODES.ok);
      const { queues } = JSON.parse(run.stdout) as { queues: { name: string; counts: Record<string, number>; workers: unknown[] }[] };
      expect(queues).toEqual([
        expect.objectContaining({
          name: 'ahead',
          counts: expect.objectContaining({ running: 0, claimed: 1 }),
          workers: [{ id: 'w-ahead', running: 1 }],
        }),
      ]);
    });

    it('a queue name that cannot be one and an argument QueueAdmin refuses exit 2, one line naming the class', async () => {
      for (const args of [
        ['pause', 'bad name!'],
        ['jobs', ' '],
      ]) {
        expectExit(await runCliInProcess([...args, ...databaseArgs(current.db)]), EXIT_CODES.usage, /^error: InvalidQueueNameError: /);
      }
      const run = await runCliInProcess(['clean', 'mail', '--older-than', '1d', '--status', 'running', ...databaseArgs(current.db)]);
      expectExit(run, EXIT_CODES.usage, /^error: InvalidArgumentError: .*status cannot be running/);
    });

    it('migrate reports a current schema, and backup writes a copy on SQLite (PostgreSQL: exit 2, use pg_dump)', async () => {
      await seed(current);
      const db = current.db;
      const migrate = await runCliInProcess(['migrate', '--dry-run', ...databaseArgs(db)]);
      expectExit(migrate, EXIT_CODES.ok);
      expect(migrate.stdout).toMatch(/^schema at version \d+, this version's: nothing to do$/m);
      const copy = join(db.dir, 'copy.sqlite');
      const backup = await runCliInProcess(['backup', copy, ...databaseArgs(db)]);
      if (backend.kind === 'postgres') {
        expectExit(backup, EXIT_CODES.usage, /BackupNotSupportedError/);
        return;
      }
      expectExit(backup, EXIT_CODES.ok);
      expect(existsSync(copy)).toBe(true);
      const status = await runCliInProcess(['status', '--json', '--database', copy]);
      expect((JSON.parse(status.stdout) as { queues: unknown[] }).queues).toHaveLength(2);
      expectExit(await runCliInProcess(['backup', copy, ...databaseArgs(db)]), EXIT_CODES.usage, /already exists/);
    });

    it('refuses a schema too new with exit 3, naming both versions, and changes nothing', async () => {
      await seed(current);
      const db = current.db;
      await rawSql(db, [`INSERT INTO {schema}.nest_queue_migrations (version, name, applied_at) VALUES (999, 'from-the-future', 0)`]);
      const before = backend.kind === 'sqlite' ? fileHash(db.path) : undefined;
      // The bin's exit 3 as a process, which leaves the file as it was; migrate in this process.
      const runs: [string[], typeof runCliChild][] = [
        [['pause', 'later'], runCliChild],
        [['migrate'], runCliInProcess],
      ];
      for (const [args, cli] of runs) {
        const run = await cli([...args, ...databaseArgs(db)]);
        expectExit(
          run,
          EXIT_CODES.database,
          /^error: SchemaTooNewError: The queue schema in the database is version 999, newer than version \d+/,
        );
      }
      if (before) expect(fileHash(db.path)).toBe(before);
      const paused = await rawSql(db, [
        `SELECT queue FROM {schema}.nest_queue_queues WHERE paused = ${backend.kind === 'postgres' ? 'true' : '1'}`,
      ]);
      expect(paused).toEqual([]);
    });
  },
  ['sqlite3', 'postgres'],
);

describe('nestjs-sqlite-queue on databases it must refuse', () => {
  let db: TestDatabase;
  beforeEach(() => (db = BACKENDS_BY_NAME.sqlite3.tempDatabase()));
  afterEach(() => db.cleanup());

  it('a missing file: exit 3, and the file is not created', async () => {
    const path = join(db.dir, 'nope.sqlite');
    // As a process: the bin must not create the file on its way out either.
    const run = await runCliChild(['status', '--database', path]);
    expectExit(run, EXIT_CODES.database, /^error: DatabaseFileMissingError: The queue database file .*nope\.sqlite does not exist/);
    expect(existsSync(path)).toBe(false);
  });

  it('a SQLite file of something else, and a file that is not SQLite: exit 3, the file unchanged', async () => {
    const other = join(db.dir, 'other.sqlite');
    await queryDatabase(
      { ...db, path: other, options: { ...db.options, database: other } },
      'CREATE TABLE invoices (id INTEGER PRIMARY KEY)',
    );
    const before = fileHash(other);
    for (const args of [
      ['pause', 'mail', '--driver', 'sqlite3'],
      ['status', '--driver', 'better-sqlite3'],
    ]) {
      const run = await runCliInProcess([...args, '--database', other]);
      expectExit(run, EXIT_CODES.database, /^error: NotAQueueDatabaseError: .*other\.sqlite is not a queue database/);
    }
    expect(fileHash(other)).toBe(before);
    const text = join(db.dir, 'notes.sqlite');
    writeFileSync(text, 'not a database at all, just some words that fill more than the header would\n'.repeat(10));
    const run = await runCliInProcess(['status', '--database', text]);
    expectExit(run, EXIT_CODES.database, /^error: DatabaseOpenError: .*not a SQLite database/);
  });

  it('a folder given as the file: exit 3 with DatabaseOpenError saying so, for a reading, a writing command, migrate and promote', async () => {
    const folder = join(db.dir, 'queue.sqlite.d');
    mkdirSync(folder);
    for (const args of [
      ['status', '--database', folder],
      ['pause', 'mail', '--database', folder],
      ['migrate', '--database', folder],
      ['promote', '--from', folder, '--to', 'postgres://nobody@127.0.0.1:1/none'],
    ]) {
      const run = await runCliInProcess(args);
      expectExit(run, EXIT_CODES.database, /^error: DatabaseOpenError: .*queue\.sqlite\.d is a folder, not a file/m);
    }
    expect(readdirSync(folder)).toEqual([]);
  });

  it('a queue database at an older schema: exit 3 with SchemaOutdatedError, for a reading and a writing command', async () => {
    await createLegacyDatabase(db);
    for (const args of [['status'], ['pause', LEGACY_QUEUE]]) {
      const run = await runCliInProcess([...args, '--database', db.path]);
      expectExit(run, EXIT_CODES.database, /^error: SchemaOutdatedError: The queue schema in the database is version 1/);
    }
  });

  it('a PostgreSQL server that refuses connections: exit 3, one line', async () => {
    const run = await runCliInProcess(['status', '--postgres', 'postgres://postgres:secret@127.0.0.1:1/test']);
    expectExit(run, EXIT_CODES.database, /^error: DatabaseOpenError: .*nothing accepts connections/);
    expect(run.stderr).not.toContain('secret');
  });
});
