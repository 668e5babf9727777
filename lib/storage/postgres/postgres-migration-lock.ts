import { QueryRunner } from 'typeorm';
import { MigrationLockTimeoutError } from '../../errors/migration-lock-timeout.error';
import { MigrationLockWait, waitingForMigrationLine } from '../shared/migration-lock';

/** The advisory lock key of a schema's migrations. Params: schema. */
const SCHEMA_LOCK_KEY = `hashtext('nest-queue-schema:' || $1)`;

/** Takes the schema's migration lock if free, without waiting. Params: schema. */
const TRY_SCHEMA_LOCK_SQL = `SELECT pg_try_advisory_xact_lock(${SCHEMA_LOCK_KEY}) AS locked`;

/**
 * Serialises migrations across processes booting at once, per schema: the advisory lock is held until the
 * migrating transaction ends. Params: schema.
 */
const SCHEMA_LOCK_SQL = `SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`;

/** The transaction's lock_timeout, read to be put back. */
const LOCK_TIMEOUT_SQL = `SELECT current_setting('lock_timeout') AS value`;

/** Sets lock_timeout for the rest of the transaction only. Params: the value ('1500ms'). */
const SET_LOCK_TIMEOUT_SQL = `SELECT set_config('lock_timeout', $1, true)`;

/** lock_not_available: the wait for a lock ran past lock_timeout. */
const LOCK_TIMEOUT_CODE = '55P03';

/**
 * Takes the schema's migration lock in the open transaction of `queryRunner`, waiting for another process's
 * migration up to `wait.timeoutMs`: a free lock costs one statement; a held one logs one line, then waits under
 * lock_timeout (set for that statement only: the migration's own DDL must not inherit it), and past it throws
 * `MigrationLockTimeoutError`. Without this bound a process stuck in its migration would hold every boot for ever.
 */
export async function takeSchemaLock(queryRunner: QueryRunner, schema: string, wait: MigrationLockWait): Promise<void> {
  const [tried] = (await queryRunner.query(TRY_SCHEMA_LOCK_SQL, [schema])) as { locked: boolean }[];
  if (tried?.locked === true) return;
  wait.logger.log(waitingForMigrationLine(wait));
  // lock_timeout 0 means no bound at all in PostgreSQL: not waiting is a refusal here.
  if (wait.timeoutMs <= 0) throw new MigrationLockTimeoutError(wait.target, wait.timeoutMs);
  const [previous] = (await queryRunner.query(LOCK_TIMEOUT_SQL)) as { value: string }[];
  await queryRunner.query(SET_LOCK_TIMEOUT_SQL, [`${Math.ceil(wait.timeoutMs)}ms`]);
  try {
    await queryRunner.query(SCHEMA_LOCK_SQL, [schema]);
  } catch (error) {
    const code = (error as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (error as { code?: unknown }).code;
    if (code === LOCK_TIMEOUT_CODE) throw new MigrationLockTimeoutError(wait.target, wait.timeoutMs, error);
    throw error;
  }
  await queryRunner.query(SET_LOCK_TIMEOUT_SQL, [previous.value]);
}
