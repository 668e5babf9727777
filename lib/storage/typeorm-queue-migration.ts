import { MigrationInterface, QueryRunner } from 'typeorm';
import { MIGRATIONS_TABLE } from '../table-names.constants';
import { getMigrations } from './get-migrations';
import { DEFAULT_POSTGRES_SCHEMA, postgresSchemaProblem } from './postgres/postgres-schema';

/** What `createQueueMigration` needs: the backend, the PostgreSQL schema, and the TypeORM migration's name. */
export interface QueueMigrationOptions {
  /** The backend the application's DataSource runs. */
  backend: 'sqlite' | 'postgres';
  /** PostgreSQL schema of the queue's tables (default `nest_queue`); as in the module's `postgres.schema`. */
  schema?: string;
  /**
   * The migration's name as TypeORM records it: it must end with a 13-digit timestamp (`NestQueue1735689600000`).
   * Give a new name (a new migration) whenever an upgrade of this package brings a new schema version.
   */
  name: string;
}

/**
 * A TypeORM migration class that applies the queue's schema steps the database has not recorded yet, for apps
 * whose migrations `@nestjs/typeorm` / the TypeORM CLI run (then set the module's `migrate: false`). It runs in
 * the transaction TypeORM opens for its migrations. `down` keeps the tables: the jobs in them are data.
 */
export function createQueueMigration(options: QueueMigrationOptions): new () => MigrationInterface {
  const { backend, name } = options;
  if (!/\d{13}$/.test(name)) throw new Error(`createQueueMigration: name ${JSON.stringify(name)} must end with a 13-digit timestamp`);
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  const problem = backend === 'postgres' ? postgresSchemaProblem(schema) : null;
  if (problem) throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}: ${problem}`);
  const steps = getMigrations(backend, { schema });
  // Reads first whether the table exists: a failed SELECT would abort the PostgreSQL transaction.
  const tableSql =
    backend === 'postgres'
      ? `SELECT to_regclass('"${schema}".${MIGRATIONS_TABLE}') IS NOT NULL AS present`
      : `SELECT count(*) > 0 AS present FROM sqlite_master WHERE type = 'table' AND name = '${MIGRATIONS_TABLE}'`;
  const versionSql = `SELECT max(version) AS version FROM ${backend === 'postgres' ? `"${schema}".` : ''}${MIGRATIONS_TABLE}`;
  return class QueueSchemaMigration implements MigrationInterface {
    readonly name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      const [table] = (await queryRunner.query(tableSql)) as {
        present: unknown;
      }[];
      let recorded = 0;
      if (table?.present === true || Number(table?.present) === 1) {
        const [row] = (await queryRunner.query(versionSql)) as {
          version: unknown;
        }[];
        recorded = Number(row?.version ?? 0);
      }
      for (const step of steps.filter((candidate) => candidate.version > recorded)) {
        for (const statement of step.sql) await queryRunner.query(statement);
      }
    }

    async down(): Promise<void> {
      // Nothing: dropping the queue's tables would drop its jobs.
    }
  };
}
