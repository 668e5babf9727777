/**
 * `migrate: false`, on every backend: boot applies nothing and refuses a missing or older schema with
 * SchemaOutdatedError, writing nothing; after the application ran the statements of `getMigrations()` itself,
 * boot starts on the database as it is.
 */
import { Test, TestingModule } from '@nestjs/testing';
import { InvalidModuleOptionsError, QueueAdmin, SchemaOutdatedError, SqliteQueueModule, getMigrations } from '../lib';
import { LEGACY_QUEUE, createLegacyDatabase, rawSql } from './fixtures/legacy-schema';
import { TestDatabase, describeEachBackend, perTestApp } from './support/backends';
import { allSchemaVersions, latestSchemaVersion } from './support/schema-versions';

async function boot(db: TestDatabase, migrate: unknown): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [
      SqliteQueueModule.forRoot({
        ...db.options,
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

async function hasMigrationsTable(db: TestDatabase): Promise<boolean> {
  const rows = await rawSql(db, [
    !db.options.postgres
      ? `SELECT name FROM sqlite_master WHERE name = 'nest_queue_migrations'`
      : `SELECT table_name FROM information_schema.tables WHERE table_schema = '${db.options.postgres?.schema}'
          AND table_name = 'nest_queue_migrations'`,
  ]);
  return rows.length > 0;
}

describeEachBackend('migrate: false', (backend) => {
  const current = perTestApp(backend);

  it('refuses a 0.1.0 database, naming its version and the one needed, and changes nothing', async () => {
    await createLegacyDatabase(current.db);
    const refusal = boot(current.db, false);
    await expect(refusal).rejects.toBeInstanceOf(SchemaOutdatedError);
    await expect(refusal).rejects.toThrow(`version 1, and this build needs version ${latestSchemaVersion(backend.kind)}`);
    expect(await hasMigrationsTable(current.db)).toBe(false);
  });

  it('refuses an empty database (version 0)', async () => {
    await expect(boot(current.db, false)).rejects.toThrow(`version 0, and this build needs version ${latestSchemaVersion(backend.kind)}`);
  });

  it('boots on a database the application migrated with the statements of getMigrations()', async () => {
    await createLegacyDatabase(current.db);
    const steps =
      backend.kind === 'sqlite'
        ? getMigrations('sqlite')
        : getMigrations('postgres', {
            schema: current.db.options.postgres!.schema!,
          });
    expect(steps.map((step) => step.version)).toEqual(allSchemaVersions(backend.kind));
    expect(steps.slice(0, 6).map((step) => [step.version, step.name])).toEqual(
      backend.kind === 'sqlite'
        ? [
            [1, 'initial'],
            [2, 'finished-index'],
            [3, 'job-names'],
            [4, 'flows'],
            [5, 'queue-limits'],
            [6, 'events-table'],
          ]
        : [
            [1, 'initial'],
            [2, 'partial-status-index'],
            [3, 'job-names'],
            [4, 'flows'],
            [5, 'queue-limits'],
            [6, 'events-table'],
          ],
    );
    expect(steps.map((step) => step.version)).toEqual(steps.map((_, i) => i + 1));
    for (const step of steps) await rawSql(current.db, step.sql);
    current.app = await boot(current.db, false);
    expect(await current.app.get(QueueAdmin).getCounts(LEGACY_QUEUE)).toEqual({
      pending: 2,
      running: 1,
      claimed: 0,
      completed: 1,
      failed: 1,
      cancelled: 1,
    });
    const versions = await rawSql<{ version: number }>(current.db, ['SELECT version FROM {schema}.nest_queue_migrations ORDER BY version']);
    expect(versions.map((row) => Number(row.version))).toEqual(allSchemaVersions(backend.kind));
  });

  it('is a boolean', async () => {
    await expect(boot(current.db, 'no')).rejects.toBeInstanceOf(InvalidModuleOptionsError);
  });
});
