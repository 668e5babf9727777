/**
 * `migrate: false`, on every backend: boot applies nothing and refuses a missing or older schema with
 * SchemaOutdatedError, writing nothing; after the application ran the statements of `getMigrations()` itself,
 * boot starts on the database as it is.
 */
import { Test, TestingModule } from '@nestjs/testing';
import { InvalidModuleOptionsError, QueueAdmin, SchemaOutdatedError, SqliteQueueModule, getMigrations } from '../lib';
import { LEGACY_QUEUE, createLegacyDatabase, rawSql } from './fixtures/legacy-schema';
import { perTestApp } from './support/per-test-app';
import { postgresSchemaFor, testBackend } from './support/test-backend';

async function boot(path: string, migrate: unknown): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [
      SqliteQueueModule.forRoot({
        database: path,
        processing: false,
        migrate: migrate as boolean,
      }),
    ],
  }).compile();
  try {
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

async function hasMigrationsTable(path: string): Promise<boolean> {
  const rows = await rawSql(path, [
    testBackend() === 'sqlite'
      ? `SELECT name FROM sqlite_master WHERE name = 'nest_queue_migrations'`
      : `SELECT table_name FROM information_schema.tables WHERE table_schema = '${postgresSchemaFor(path)}'
          AND table_name = 'nest_queue_migrations'`,
  ]);
  return rows.length > 0;
}

describe('migrate: false', () => {
  const current = perTestApp();

  it('refuses a 0.1.0 database, naming its version and the one needed, and changes nothing', async () => {
    await createLegacyDatabase(current.db.path);
    const refusal = boot(current.db.path, false);
    await expect(refusal).rejects.toBeInstanceOf(SchemaOutdatedError);
    await expect(refusal).rejects.toThrow('version 1, and this build needs version 2');
    expect(await hasMigrationsTable(current.db.path)).toBe(false);
  });

  it('refuses an empty database (version 0)', async () => {
    await expect(boot(current.db.path, false)).rejects.toThrow('version 0, and this build needs version 2');
  });

  it('boots on a database the application migrated with the statements of getMigrations()', async () => {
    await createLegacyDatabase(current.db.path);
    const steps =
      testBackend() === 'sqlite'
        ? getMigrations('sqlite')
        : getMigrations('postgres', {
            schema: postgresSchemaFor(current.db.path),
          });
    expect(steps.map((step) => [step.version, step.name])).toEqual(
      testBackend() === 'sqlite'
        ? [
            [1, 'initial'],
            [2, 'finished-index'],
          ]
        : [
            [1, 'initial'],
            [2, 'partial-status-index'],
          ],
    );
    for (const step of steps) await rawSql(current.db.path, step.sql);
    current.app = await boot(current.db.path, false);
    expect(await current.app.get(QueueAdmin).getCounts(LEGACY_QUEUE)).toEqual({
      pending: 2,
      running: 1,
      completed: 1,
      failed: 1,
      cancelled: 1,
    });
    const versions = await rawSql<{ version: number }>(current.db.path, [
      'SELECT version FROM {schema}.nest_queue_migrations ORDER BY version',
    ]);
    expect(versions.map((row) => Number(row.version))).toEqual([1, 2]);
  });

  it('is a boolean', async () => {
    await expect(boot(current.db.path, 'no')).rejects.toBeInstanceOf(InvalidModuleOptionsError);
  });
});
