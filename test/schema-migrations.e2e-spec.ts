/**
 * Numbered schema migrations at boot, on every backend: a database made by the first released build (0.1.0, no
 * migrations table) is adopted as version 1 and migrated to today's schema; its jobs stay readable and claimable;
 * the result equals a database made fresh by today's build; two processes booting it at once apply each step once.
 * A schema newer than the build knows, and a queue table another application made, refuse to boot.
 */
import { Injectable } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import {
  ForeignSchemaError,
  Job,
  Processor,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  SchemaTooNewError,
  SqliteQueueModule,
} from '../lib';
import { LEGACY_QUEUE, createLegacyDatabase, rawSql } from './fixtures/legacy-schema';
import { startChildApp } from './support/child-app';
import { TestDatabase, describeEachBackend, itWhen, perTestApp } from './support/backends';
import { waitFor } from './support/wait-for';
import { allSchemaVersions, latestSchemaVersion } from './support/schema-versions';

const processed: number[] = [];

@Injectable()
@Processor(LEGACY_QUEUE)
class LegacyProcessor implements QueueProcessor<{ n: number }, number> {
  async process(job: Job<{ n: number }>): Promise<number> {
    processed.push(job.data.n);
    return job.data.n;
  }
}

async function boot(db: TestDatabase, processing: boolean): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [
      SqliteQueueModule.forRoot({
        ...db.options,
        processing,
        pollInterval: 100,
      }),
    ],
    providers: processing ? [LegacyProcessor] : [],
  }).compile();
  try {
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

async function recordedVersions(db: TestDatabase): Promise<number[]> {
  const rows = await rawSql<{ version: number }>(db, ['SELECT version FROM {schema}.nest_queue_migrations ORDER BY version']);
  return rows.map((row) => Number(row.version));
}

/** The shape of the queue's tables, comparable between two databases (schema names and comments taken out). */
async function schemaShape(db: TestDatabase): Promise<unknown> {
  if (!db.options.postgres) {
    const rows = await rawSql<{
      type: string;
      name: string;
      sql: string | null;
    }>(db, [`SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'nest_queue_%' ORDER BY name`]);
    return rows.map((row) => ({
      ...row,
      sql: String(row.sql)
        .replace(/--[^\n]*/g, '')
        .replace(/IF NOT EXISTS /g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    }));
  }
  const schema = db.options.postgres!.schema!;
  const columns = await rawSql(
    db,
    [
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = ? ORDER BY table_name, column_name`,
    ],
    [schema],
  );
  const indexes = await rawSql<{ indexname: string; indexdef: string }>(
    db,
    [`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ? ORDER BY indexname`],
    [schema],
  );
  const options = await rawSql(
    db,
    [
      `SELECT c.relname, c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ? AND c.relkind = 'r' ORDER BY c.relname`,
    ],
    [schema],
  );
  return {
    columns,
    indexes: indexes.map((row) => ({
      ...row,
      indexdef: row.indexdef.split(schema).join('S'),
    })),
    options,
  };
}

/** The definition of the jobs' status-and-finish-time index: gone (SQLite) or partial (PostgreSQL) after migration 2. */
async function finishedIndexes(db: TestDatabase): Promise<string[]> {
  if (!db.options.postgres) {
    const rows = await rawSql<{ name: string }>(db, [
      `SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (
      'nest_queue_jobs_status', 'nest_queue_jobs_finished') ORDER BY name`,
    ]);
    return rows.map((row) => row.name);
  }
  const rows = await rawSql<{ indexdef: string }>(
    db,
    [
      `SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND indexname =
    'nest_queue_jobs_status'`,
    ],
    [db.options.postgres?.schema],
  );
  return rows.map((row) => row.indexdef.replace(/^.* USING btree /, ''));
}

describeEachBackend('schema migrations', (backend) => {
  const LATEST = latestSchemaVersion(backend.kind);
  const current = perTestApp(backend);

  beforeEach(() => processed.splice(0));

  it('upgrades a 0.1.0 database: adopted as version 1, migrated to 2, its jobs kept, read and claimed', async () => {
    await createLegacyDatabase(current.db);
    expect(await finishedIndexes(current.db)).toEqual(
      backend.kind === 'sqlite' ? ['nest_queue_jobs_status'] : ['(queue, status, finished_at)'],
    );

    current.app = await boot(current.db, false);
    expect(await recordedVersions(current.db)).toEqual(allSchemaVersions(backend.kind));
    expect(await finishedIndexes(current.db)).toEqual(
      backend.kind === 'sqlite'
        ? ['nest_queue_jobs_finished']
        : [`(queue, status, finished_at) WHERE (status = ANY (ARRAY['completed'::text, 'failed'::text, 'cancelled'::text]))`],
    );
    const admin = current.app.get(QueueAdmin);
    expect(await admin.getCounts(LEGACY_QUEUE)).toEqual({
      pending: 2,
      running: 1,
      claimed: 0,
      completed: 1,
      failed: 1,
      cancelled: 1,
    });
    expect((await admin.getJobs(LEGACY_QUEUE, { status: 'completed' })).map((job) => job.data)).toEqual([{ n: 4 }]);
    await current.app.close();

    current.app = await boot(current.db, true);
    await current.app.get(QueueProducer).add(LEGACY_QUEUE, { n: 7 });
    // The two pending jobs, the one added now, and the running one whose process died long ago.
    await waitFor(async () => (await current.app!.get(QueueAdmin).getCounts(LEGACY_QUEUE)).completed === 5, 'every job done');
    expect([...processed].sort()).toEqual([1, 2, 3, 7]);
    expect(await recordedVersions(current.db)).toEqual(allSchemaVersions(backend.kind));
  });

  it('leaves a migrated 0.1.0 database with exactly the schema a fresh database gets', async () => {
    const fresh = current.otherDatabase('fresh');
    current.app = await boot(fresh, false);
    await current.app.close();
    current.app = undefined;
    await createLegacyDatabase(current.db);
    current.app = await boot(current.db, false);
    expect(await schemaShape(current.db)).toEqual(await schemaShape(fresh));
    expect(await recordedVersions(fresh)).toEqual(allSchemaVersions(backend.kind));
  });

  it('two processes booting the same 0.1.0 database at once both start, and each step is recorded once', async () => {
    await createLegacyDatabase(current.db);
    const children = [0, 1].map(() =>
      startChildApp({
        connection: current.db.options,
        module: { processing: false },
      }),
    );
    try {
      await Promise.all(children.map((child) => child.printed('READY')));
    } catch (error) {
      throw new Error(`${String(error)}\n${children.map((child) => child.stderr()).join('\n')}`, { cause: error });
    } finally {
      await Promise.all(children.map((child) => child.stop()));
    }
    const rows = await rawSql<{ version: number }>(current.db, ['SELECT version FROM {schema}.nest_queue_migrations']);
    expect(rows.map((row) => Number(row.version)).sort((a, b) => a - b)).toEqual(allSchemaVersions(backend.kind));
    expect(await finishedIndexes(current.db)).toHaveLength(1);
  });

  it('refuses to start on a schema a newer build migrated, naming both versions, and writes nothing', async () => {
    current.app = await boot(current.db, false);
    await current.app.close();
    current.app = undefined;
    await rawSql(current.db, [
      `INSERT INTO {schema}.nest_queue_migrations (version, name, applied_at) VALUES (${LATEST + 1}, 'future', 0)`,
    ]);
    const refusal = boot(current.db, false);
    await expect(refusal).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(refusal).rejects.toThrow(`version ${LATEST + 1}, newer than version ${LATEST}`);
    expect(await recordedVersions(current.db)).toEqual([...allSchemaVersions(backend.kind), LATEST + 1]);
  });

  it('refuses a jobs table another application made with one more NOT NULL column, leaving its rows alone', async () => {
    const integer = backend.kind === 'sqlite' ? 'INTEGER' : 'bigint';
    await rawSql(current.db, [
      ...(backend.kind === 'sqlite' ? [] : ['CREATE SCHEMA {schema}']),
      `CREATE TABLE {schema}.nest_queue_jobs (id ${integer} PRIMARY KEY, queue TEXT NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL,
        priority ${integer} NOT NULL DEFAULT 0, run_at ${integer} NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts ${integer} NOT NULL, backoff TEXT, timeout_ms ${integer}, unique_key TEXT, locked_by TEXT, lease_until ${integer},
        result TEXT, error TEXT, progress TEXT, schedule_key TEXT, created_at ${integer} NOT NULL, started_at ${integer},
        finished_at ${integer}, updated_at ${integer} NOT NULL, tenant_id TEXT NOT NULL)`,
      `INSERT INTO {schema}.nest_queue_jobs (id, queue, status, data, run_at, max_attempts, created_at, updated_at, tenant_id)
        VALUES (1, 'theirs', 'pending', '{}', 0, 1, 0, 0, 'acme')`,
    ]);
    const refusal = boot(current.db, true);
    await expect(refusal).rejects.toBeInstanceOf(ForeignSchemaError);
    await expect(refusal).rejects.toThrow(/nest_queue_jobs was not created by this library \(unexpected column tenant_id\)/);
    const rows = await rawSql(current.db, ['SELECT id, status, attempts FROM {schema}.nest_queue_jobs']);
    expect(
      rows.map((row) => ({
        id: Number(row.id),
        status: row.status,
        attempts: Number(row.attempts),
      })),
    ).toEqual([{ id: 1, status: 'pending', attempts: 0 }]);
    const tables = await rawSql(current.db, [
      backend.kind === 'sqlite'
        ? `SELECT name FROM sqlite_master WHERE name = 'nest_queue_migrations'`
        : `SELECT table_name FROM information_schema.tables WHERE table_schema = '${current.db.options.postgres?.schema}'
            AND table_name = 'nest_queue_migrations'`,
    ]);
    expect(tables).toEqual([]);
  });

  it('refuses a table of the same name with another shape, naming the missing column', async () => {
    await rawSql(current.db, [
      ...(backend.kind === 'sqlite' ? [] : ['CREATE SCHEMA {schema}']),
      `CREATE TABLE {schema}.nest_queue_jobs (id INTEGER PRIMARY KEY, name TEXT, status TEXT)`,
    ]);
    const refusal = boot(current.db, false);
    await expect(refusal).rejects.toBeInstanceOf(ForeignSchemaError);
    await expect(refusal).rejects.toThrow(/missing columns queue, data, priority/);
  });
});

/**
 * The migrations table emptied or damaged by hand, the tables at today's version: boot re-records the versions
 * (on SQLite from the tables' shape: steps that cannot run twice are not run again) and starts, on every backend.
 */
describeEachBackend('a migrations table damaged by hand', (backend) => {
  const current = perTestApp(backend);
  const damages: [string, string[]][] = [
    ['emptied', ['DELETE FROM {schema}.nest_queue_migrations']],
    ['left with versions 1 and 2 only', ['DELETE FROM {schema}.nest_queue_migrations WHERE version > 2']],
    [
      'left with version -5 only',
      [
        'DELETE FROM {schema}.nest_queue_migrations',
        `INSERT INTO {schema}.nest_queue_migrations (version, name, applied_at) VALUES (-5, 'bogus', 0)`,
      ],
    ],
  ];

  for (const [damage, statements] of damages) {
    it(`boots on a current schema whose migrations table was ${damage}, and records every version again`, async () => {
      const fresh = current.otherDatabase('fresh');
      current.app = await boot(fresh, false);
      await current.app.close();
      current.app = await boot(current.db, false);
      await current.app.get(QueueProducer).add(LEGACY_QUEUE, { n: 1 });
      await current.app.close();
      current.app = undefined;
      await rawSql(current.db, statements);

      current.app = await boot(current.db, true);
      await waitFor(async () => (await current.app!.get(QueueAdmin).getCounts(LEGACY_QUEUE)).completed === 1, 'the job done');
      const versions = await recordedVersions(current.db);
      expect(versions.filter((version) => version > 0)).toEqual(allSchemaVersions(backend.kind));
      expect(await schemaShape(current.db)).toEqual(await schemaShape(fresh));
    });
  }

  itWhen(backend.kind === 'sqlite')(
    'refuses an emptied migrations table beside tables of no version’s shape, naming the table and what differs',
    async () => {
      current.app = await boot(current.db, false);
      await current.app.close();
      current.app = undefined;
      await rawSql(current.db, ['DELETE FROM nest_queue_migrations', 'ALTER TABLE nest_queue_jobs ADD COLUMN tenant_id TEXT']);
      const refusal = boot(current.db, true);
      await expect(refusal).rejects.toBeInstanceOf(ForeignSchemaError);
      await expect(refusal).rejects.toThrow(/nest_queue_jobs .*unexpected column tenant_id.*nest_queue_migrations records no version/);
      expect(await recordedVersions(current.db)).toEqual([]);
    },
  );
});
