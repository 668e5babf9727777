/**
 * `createQueueMigration`: a TypeORM migration class run by a real DataSource's `runMigrations()` (what
 * `@nestjs/typeorm` with `migrationsRun` does) brings a 0.1.0 database to the current schema, records it, and a
 * module with `migrate: false` then boots on it. On every backend.
 */
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { QueueAdmin, SqliteQueueModule, createQueueMigration } from '../lib';
import { LEGACY_QUEUE, createLegacyDatabase, rawSql } from './fixtures/legacy-schema';
import { TestDatabase, describeEachBackend, perTestApp } from './support/backends';
import { postgresTestUrl } from './support/test-backend';
import { allSchemaVersions } from './support/schema-versions';

function applicationDataSource(db: TestDatabase, migration: ReturnType<typeof createQueueMigration>): DataSource {
  if (db.options.postgres) {
    // TypeORM's own migrations table in the test's schema, so parallel tests do not share it.
    return new DataSource({
      type: 'postgres',
      url: postgresTestUrl(),
      schema: db.options.postgres?.schema,
      migrations: [migration],
      poolSize: 1,
    });
  }
  return new DataSource({
    type: db.options.driver === 'better-sqlite3' ? 'better-sqlite3' : 'sqlite',
    database: db.path,
    migrations: [migration],
  });
}

describeEachBackend('createQueueMigration with TypeORM runMigrations()', (backend) => {
  const current = perTestApp(backend);

  it('migrates a 0.1.0 database inside TypeORM, then a migrate: false module boots on it', async () => {
    await createLegacyDatabase(current.db);
    const migration = createQueueMigration({
      backend: backend.kind,
      schema: current.db.options.postgres?.schema,
      name: 'NestQueueSchema1735689600000',
    });
    const dataSource = await applicationDataSource(current.db, migration).initialize();
    try {
      const ran = await dataSource.runMigrations({ transaction: 'all' });
      expect(ran.map((entry) => entry.name)).toEqual(['NestQueueSchema1735689600000']);
      expect(await dataSource.runMigrations()).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
    const versions = await rawSql<{ version: number }>(current.db, ['SELECT version FROM {schema}.nest_queue_migrations ORDER BY version']);
    expect(versions.map((row) => Number(row.version))).toEqual(allSchemaVersions(backend.kind));

    current.app = await Test.createTestingModule({
      imports: [
        SqliteQueueModule.forRoot({
          ...current.db.options,
          processing: false,
          migrate: false,
        }),
      ],
    }).compile();
    await current.app.init();
    expect((await current.app.get(QueueAdmin).getCounts(LEGACY_QUEUE)).pending).toBe(2);
  });

  it('refuses a name TypeORM could not order', () => {
    expect(() => createQueueMigration({ backend: 'sqlite', name: 'QueueSchema' })).toThrow(/13-digit timestamp/);
  });
});
