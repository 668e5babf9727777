import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PostgresConnection } from '../postgres-connection';
import { BackupNotSupportedError } from '../../../errors/backup-not-supported.error';
import { applyPostgresSchema } from '../postgres-schema';
import { StorageLifecycle } from '../../roles/storage-lifecycle.interface';
import { PostgresBackend } from './postgres-backend';

/** `StorageLifecycle` on PostgreSQL: see the role's interface for each member. */
export class PostgresStorageLifecycle implements StorageLifecycle {
  private readonly connection: PostgresConnection;
  private readonly schema: string;
  private readonly createSchema: boolean;
  private readonly migrationLockTimeout: number;
  private readonly logger: Logger;

  constructor(backend: PostgresBackend) {
    this.connection = backend.connection;
    this.schema = backend.schema;
    this.createSchema = backend.createSchema;
    this.migrationLockTimeout = backend.migrationLockTimeout;
    this.logger = backend.logger;
  }

  initialize(): Promise<void> {
    const wait = { timeoutMs: this.migrationLockTimeout, target: `schema "${this.schema}"`, logger: this.logger };
    return this.connection.open((dataSource: DataSource, runner) =>
      applyPostgresSchema(dataSource, runner, this.schema, this.createSchema, wait),
    );
  }

  /** Waits for an initialize in progress, then releases everything; safe to call at any time, and twice. */
  close(): Promise<void> {
    return this.connection.close();
  }

  backup(): Promise<void> {
    return Promise.reject(new BackupNotSupportedError(this.schema));
  }

  /** PostgreSQL reports its own failures statement by statement: no lasting fault state here. */
  get fault(): Error | undefined {
    return undefined;
  }
}
