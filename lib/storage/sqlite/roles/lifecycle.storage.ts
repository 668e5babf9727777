import { Logger } from '@nestjs/common';
import { MODULE_DEFAULTS } from '../../../module-defaults.constants';
import { vacuumInto } from '../sql/backup.sql';
import { SqliteConnection } from '../sqlite-connection';
import { applySqliteSchema } from '../sqlite-schema';
import { StorageLifecycle } from '../../roles/storage-lifecycle.interface';
import { SqliteBackend } from './sqlite-backend';

/** `StorageLifecycle` on SQLite: see the role's interface for each member. */
export class SqliteStorageLifecycle implements StorageLifecycle {
  private readonly db: SqliteConnection;
  private readonly logger: Logger;
  private readonly schema: { migrate?: boolean; migrationLockTimeout?: number };

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
    this.logger = backend.logger;
    this.schema = backend.schema;
  }

  initialize(): Promise<void> {
    const wait = {
      timeoutMs: this.schema.migrationLockTimeout ?? MODULE_DEFAULTS.migrationLockTimeout,
      target: `file "${this.db.path}"`,
      logger: this.logger,
    };
    return this.db.open((runner) => applySqliteSchema(runner, this.schema.migrate ?? true, wait));
  }

  close(): Promise<void> {
    return this.db.close();
  }

  get fault(): Error | undefined {
    return this.db.fault;
  }

  backup(destination: string): Promise<void> {
    return vacuumInto(this.db.runner, destination);
  }
}
