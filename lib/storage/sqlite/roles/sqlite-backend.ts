import { Logger } from '@nestjs/common';
import { SqliteConnection } from '../sqlite-connection';

/**
 * What the SQLite storage's roles share: the one connection (its statements, what they wrote, the insert hints, the
 * caller's transaction), the logger, and the schema settings boot applies.
 */
export interface SqliteBackend {
  readonly db: SqliteConnection;
  readonly logger: Logger;
  /**
   * `migrate` false: boot only checks the schema version (see `applySqliteSchema`); `migrationLockTimeout`: how long
   * boot waits for another process's migration (default the module's).
   */
  readonly schema: { migrate?: boolean; migrationLockTimeout?: number };
}
