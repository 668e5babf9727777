/**
 * The schema check at boot reads the catalog in several statements. CI once caught two processes booting a 0.1.0
 * PostgreSQL database together: the second read the tables (no migrations table yet), the first committed its
 * migration, and the second then read the jobs table's new columns and refused a sound database as foreign.
 * These tests put another process's whole migration exactly between those two reads, every time.
 */
import BetterSqlite3 from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { SchemaOutdatedError, SqliteQueueModule } from '../lib';
import { Test } from '@nestjs/testing';
import { applyPostgresSchema } from '../lib/storage/postgres/postgres-schema';
import { applySqliteSchema } from '../lib/storage/sqlite/sqlite-schema';
import { StatementRunner } from '../lib/storage/shared/statement-runner';
import { StorageRow } from '../lib/storage/shared/job-row.mapper';
import { createLegacyDatabase, rawSql } from './fixtures/legacy-schema';
import { TestDatabase, describeEachBackend, perTestApp } from './support/backends';
import { allSchemaVersions } from './support/schema-versions';
import { postgresTestUrl } from './support/test-backend';

/** A column read: the second read of the check on a database without a migrations table. */
const COLUMN_READ = /information_schema\.columns|pragma_table_info/;

/** Boots an app on `db` (which migrates it) and closes it: the other process of the race. */
async function migrateFromAnotherConnection(db: TestDatabase): Promise<void> {
  const app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...db.options, processing: false })] }).compile();
  await app.init();
  await app.close();
}

/** Wraps a runner so that the other process migrates the database right before the check's first column read. */
function racingRunner(inner: StatementRunner, db: TestDatabase): { runner: StatementRunner; raced: () => boolean } {
  let raced = false;
  const before = async (sql: string): Promise<void> => {
    if (raced || !COLUMN_READ.test(sql)) return;
    raced = true;
    await migrateFromAnotherConnection(db);
  };
  return {
    runner: {
      all: async (sql, params) => (await before(sql), inner.all(sql, params)),
      run: async (sql, params) => (await before(sql), inner.run(sql, params)),
    },
    raced: () => raced,
  };
}

function betterSqliteRunner(connection: BetterSqlite3.Database): StatementRunner {
  return {
    all: async (sql, params) => connection.prepare(sql).all(...params) as StorageRow[],
    run: async (sql, params) => connection.prepare(sql).run(...params).changes,
  };
}

/**
 * Runs the schema check on `db` through its own connection, with `migrate`, while another process migrates the
 * database between the check's reads; resolves as the check does, `raced` telling that the migration did run there.
 * `race` false: no other process, a plain check (a second look).
 */
async function checkWhileAnotherMigrates(db: TestDatabase, migrate: boolean, race = true): Promise<{ raced: boolean }> {
  let raced = () => false;
  const wrap = (inner: StatementRunner): StatementRunner => {
    if (!race) return inner;
    const racing = racingRunner(inner, db);
    raced = racing.raced;
    return racing.runner;
  };
  if (!db.options.postgres) {
    const connection = new BetterSqlite3(db.path, { timeout: 10_000 });
    try {
      // As the library's connection does before the check: a reader in WAL mode does not hold off a writer.
      connection.pragma('journal_mode = WAL');
      await applySqliteSchema(wrap(betterSqliteRunner(connection)), migrate);
      return { raced: raced() };
    } finally {
      connection.close();
    }
  }
  const dataSource = await new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 2 }).initialize();
  try {
    const direct: StatementRunner = {
      all: async (sql, params) => (await dataSource.query(sql, params)) as StorageRow[],
      run: async (sql, params) => ((await dataSource.query(sql, params)) as unknown[]).length,
    };
    await applyPostgresSchema(dataSource, wrap(direct), db.options.postgres.schema!, migrate);
    return { raced: raced() };
  } finally {
    await dataSource.destroy();
  }
}

describeEachBackend(
  'schema check racing another process’s migration',
  (backend) => {
    const current = perTestApp(backend);

    it('a migration committed between the check’s reads is seen whole, and boot goes on', async () => {
      await createLegacyDatabase(current.db);
      expect(await checkWhileAnotherMigrates(current.db, true)).toEqual({ raced: true });
      const rows = await rawSql<{ version: number }>(current.db, ['SELECT version FROM {schema}.nest_queue_migrations']);
      expect(rows.map((row) => Number(row.version)).sort((a, b) => a - b)).toEqual(allSchemaVersions(backend.kind));
    });

    it('a process that only checks (createSchema false) sees the migration whole too', async () => {
      await createLegacyDatabase(current.db);
      if (backend.kind === 'sqlite') {
        // Its one consistent read is of the 0.1.0 file, which an app that may not migrate calls outdated.
        const check = checkWhileAnotherMigrates(current.db, false);
        await expect(check).rejects.toBeInstanceOf(SchemaOutdatedError);
        // Read again, the migrated file passes.
        await checkWhileAnotherMigrates(current.db, false, false);
      } else {
        // Decided under the lock, after the migration committed: the schema is current.
        expect(await checkWhileAnotherMigrates(current.db, false)).toEqual({ raced: true });
      }
    });
  },
  ['better-sqlite3', 'postgres'],
);
