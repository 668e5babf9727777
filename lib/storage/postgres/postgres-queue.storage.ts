import { Logger } from '@nestjs/common';
import { MODULE_DEFAULTS } from '../../module-defaults.constants';
import { QueueStorage } from '../queue-storage.interface';
import { assembleStorage } from '../shared/assemble-storage';
import { PostgresConnection, PostgresConnectionSource } from './postgres-connection';
import { DEFAULT_POSTGRES_SCHEMA, postgresSchemaProblem } from './postgres-schema';
import { PostgresTransactions } from './postgres-transaction';
import { PostgresBackend } from './roles/postgres-backend';
import { PostgresEnqueueStorage } from './roles/enqueue.storage';
import { PostgresLeaseStorage } from './roles/lease.storage';
import { PostgresClaimStorage } from './roles/claim.storage';
import { PostgresWaitStorage } from './roles/wait.storage';
import { PostgresEventStorage } from './roles/event.storage';
import { PostgresStorageLifecycle } from './roles/lifecycle.storage';
import { PostgresCallerTransactionStorage } from './roles/caller-transaction.storage';
import { PostgresFlowStorage } from './roles/flow.storage';
import { PostgresControlStorage } from './roles/control.storage';
import { PostgresKeyedEnqueueStorage } from './roles/keyed-enqueue.storage';
import { PostgresDeadLetterStorage } from './roles/dead-letter.storage';
import { PostgresSnoozeStorage } from './roles/snooze.storage';
import { PostgresLimitStorage } from './roles/limit.storage';
import { PostgresInspectionStorage } from './roles/inspection.storage';
import { PostgresHousekeepingStorage } from './roles/housekeeping.storage';
import { PostgresExplainStorage } from './roles/explain.storage';
import { PostgresGroupStorage } from './roles/group.storage';
import { PostgresScheduleStorage } from './roles/schedule.storage';
import { PostgresOperatorStorage } from './roles/operator.storage';

/** Where the PostgreSQL storage gets its connection, and the schema settings that apply either way. */
export type PostgresStorageConfig = PostgresConnectionSource & {
  /** Default `'nest_queue'`. */
  schema?: string;
  /** Default true. */
  createSchema?: boolean;
  /** Hot statements sent as named prepared statements. Default true. */
  preparedStatements?: boolean;
  /** How long boot waits for another process's migration, in ms. Default the module's. */
  migrationLockTimeout?: number;
};

/**
 * The PostgreSQL backend (TypeORM `postgres` driver, node-postgres): the statements of `sql/` on a
 * `PostgresConnection`, one role of `QueueStorage` per file of `roles/`, put together here. Every method is one
 * statement on a pooled connection, so many processes on many machines work the same tables concurrently: claims lock
 * their rows with `FOR UPDATE SKIP LOCKED` and never wait for each other. Insert hints come from LISTEN/NOTIFY on a
 * dedicated connection, so a job enqueued on one machine wakes the pollers of all.
 */
export function createPostgresStorage(config: PostgresStorageConfig): QueueStorage {
  const schema = config.schema ?? DEFAULT_POSTGRES_SCHEMA;
  const problem = postgresSchemaProblem(schema);
  if (problem) throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}: ${problem}`);
  const connection = new PostgresConnection(config, schema, config.preparedStatements ?? true);
  const db = connection.context;
  const backend: PostgresBackend = {
    connection,
    db,
    transactions: new PostgresTransactions(() => connection.source, db.runner, db.tables),
    logger: new Logger('JobQueue:postgres'),
    schema,
    createSchema: config.createSchema ?? true,
    migrationLockTimeout: config.migrationLockTimeout ?? MODULE_DEFAULTS.migrationLockTimeout,
  };
  return assembleStorage<QueueStorage>(
    backend,
    new PostgresEnqueueStorage(backend),
    new PostgresLeaseStorage(backend),
    new PostgresClaimStorage(backend),
    new PostgresWaitStorage(backend),
    new PostgresEventStorage(backend),
    new PostgresStorageLifecycle(backend),
    new PostgresCallerTransactionStorage(backend),
    new PostgresFlowStorage(backend),
    new PostgresControlStorage(backend),
    new PostgresKeyedEnqueueStorage(backend),
    new PostgresDeadLetterStorage(backend),
    new PostgresSnoozeStorage(backend),
    new PostgresLimitStorage(backend),
    new PostgresInspectionStorage(backend),
    new PostgresHousekeepingStorage(backend),
    new PostgresExplainStorage(backend),
    new PostgresGroupStorage(backend),
    new PostgresScheduleStorage(backend),
    new PostgresOperatorStorage(backend),
  );
}
