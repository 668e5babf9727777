/**
 * PostgreSQL, for users who run the migrations themselves (`createSchema: false`): the exported statements
 * migrate a 0.1.0 schema and record each version; run again at the next deploy they change nothing (the status
 * index is not rebuilt); boot then starts without DDL, and refuses an older schema with SchemaOutdatedError.
 */
import { DataSource } from 'typeorm';
import { SchemaOutdatedError, getPostgresSchemaSql } from '../lib';
import { createPostgresStorage } from '../lib/storage/postgres/postgres-queue.storage';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { LEGACY_QUEUE, createLegacyDatabase, rawSql } from './fixtures/legacy-schema';
import { TestDatabase, describePostgres } from './support/backends';
import { postgresTestUrl } from './support/test-backend';
import { allSchemaVersions, latestSchemaVersion } from './support/schema-versions';

describePostgres('PostgreSQL migrations run by the application', (backend) => {
  let db: TestDatabase;
  const storages: QueueStorage[] = [];

  beforeEach(() => (db = backend.tempDatabase()));
  afterEach(async () => {
    await Promise.all(storages.splice(0).map((storage) => storage.close()));
    db.cleanup();
  });

  async function storage(): Promise<QueueStorage> {
    const created = createPostgresStorage({
      connection: { url: postgresTestUrl(), poolSize: 2 },
      schema: db.options.postgres!.schema!,
      createSchema: false,
    });
    storages.push(created);
    await created.initialize();
    return created;
  }

  async function statusIndex(): Promise<{ oid: string; def: string }> {
    const [row] = await rawSql<{ oid: string; def: string }>(
      db,
      [
        `SELECT c.oid::text AS oid, pg_get_indexdef(c.oid) AS def FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ? AND c.relname = 'nest_queue_jobs_status'`,
      ],
      [db.options.postgres!.schema!],
    );
    return row;
  }

  it('migrates a 0.1.0 schema by hand, reruns as a no-op, then boots without migrating', async () => {
    await createLegacyDatabase(db);
    const refusal = storage();
    await expect(refusal).rejects.toBeInstanceOf(SchemaOutdatedError);
    await expect(refusal).rejects.toThrow(`version 1, and this build needs version ${latestSchemaVersion(backend.kind)}`);

    const dataSource = await new DataSource({
      type: 'postgres',
      url: postgresTestUrl(),
      poolSize: 1,
    }).initialize();
    try {
      for (const statement of getPostgresSchemaSql(db.options.postgres!.schema!)) await dataSource.query(statement);
      const migrated = await statusIndex();
      expect(migrated.def).toMatch(/WHERE/);
      for (const statement of getPostgresSchemaSql(db.options.postgres!.schema!)) await dataSource.query(statement);
      expect(await statusIndex()).toEqual(migrated);
    } finally {
      await dataSource.destroy();
    }
    const versions = await rawSql<{ version: number }>(db, ['SELECT version FROM {schema}.nest_queue_migrations ORDER BY version']);
    expect(versions.map((row) => Number(row.version))).toEqual(allSchemaVersions(backend.kind));
    const s = await storage();
    expect((await s.getCounts(LEGACY_QUEUE)).find((row) => row.status === 'pending')?.count).toBe(2);
  });
});
