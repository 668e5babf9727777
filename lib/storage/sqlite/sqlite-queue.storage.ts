import { Logger } from '@nestjs/common';
import { QueueStorage } from '../queue-storage.interface';
import { assembleStorage } from '../shared/assemble-storage';
import { SqliteBackend } from './roles/sqlite-backend';
import { SqliteConnection, SqliteConnectionSource } from './sqlite-connection';
import { SqliteClaimStorage } from './roles/claim.storage';
import { SqliteStorageLifecycle } from './roles/lifecycle.storage';
import { SqliteEnqueueStorage } from './roles/enqueue.storage';
import { SqliteCallerTransactionStorage } from './roles/caller-transaction.storage';
import { SqliteFlowStorage } from './roles/flow.storage';
import { SqliteControlStorage } from './roles/control.storage';
import { SqliteKeyedEnqueueStorage } from './roles/keyed-enqueue.storage';
import { SqliteDeadLetterStorage } from './roles/dead-letter.storage';
import { SqliteSnoozeStorage } from './roles/snooze.storage';
import { SqliteLimitStorage } from './roles/limit.storage';
import { SqliteInspectionStorage } from './roles/inspection.storage';
import { SqliteHousekeepingStorage } from './roles/housekeeping.storage';
import { SqliteLeaseStorage } from './roles/lease.storage';
import { SqliteExplainStorage } from './roles/explain.storage';
import { SqliteGroupStorage } from './roles/group.storage';
import { SqliteWaitStorage } from './roles/wait.storage';
import { SqliteEventStorage } from './roles/event.storage';
import { SqliteScheduleStorage } from './roles/schedule.storage';
import { SqliteOperatorStorage } from './roles/operator.storage';

/**
 * The SQLite backend: the statements of `sql/` on one `SqliteConnection`, one role of `QueueStorage` per file of
 * `roles/`, put together here. It runs only single, self-contained statements: TypeORM's sqlite driver has one
 * connection, and two interleaved transactions on it corrupt each other (see docs/flows-and-transactions.md). Besides
 * running them, each role tells the connection what its statements did: wrote (for the WAL checkpointer) or made jobs
 * claimable (for the insert hints). `schema.migrate` false: boot only checks the schema version (see
 * `applySqliteSchema`); `schema.migrationLockTimeout`: how long boot waits for another process's migration.
 */
export function createSqliteStorage(
  source: SqliteConnectionSource,
  schema: { migrate?: boolean; migrationLockTimeout?: number } = {},
): QueueStorage {
  const backend: SqliteBackend = { db: new SqliteConnection(source), logger: new Logger('JobQueue'), schema };
  return assembleStorage<QueueStorage>(
    backend,
    new SqliteClaimStorage(backend),
    new SqliteStorageLifecycle(backend),
    new SqliteEnqueueStorage(backend),
    new SqliteCallerTransactionStorage(backend),
    new SqliteFlowStorage(backend),
    new SqliteControlStorage(backend),
    new SqliteKeyedEnqueueStorage(backend),
    new SqliteDeadLetterStorage(backend),
    new SqliteSnoozeStorage(backend),
    new SqliteLimitStorage(backend),
    new SqliteInspectionStorage(backend),
    new SqliteHousekeepingStorage(backend),
    new SqliteLeaseStorage(backend),
    new SqliteExplainStorage(backend),
    new SqliteGroupStorage(backend),
    new SqliteWaitStorage(backend),
    new SqliteEventStorage(backend),
    new SqliteScheduleStorage(backend),
    new SqliteOperatorStorage(backend),
  );
}
