import { MigrationLockTimeoutError } from '../../errors/migration-lock-timeout.error';
import { MODULE_DEFAULTS } from '../../module-defaults.constants';
import { nextTurn } from '../../utils/next-turn.util';
import { MigrationLockWait, waitingForMigrationLine } from '../shared/migration-lock';
import { StatementRunner } from '../shared/statement-runner';
import { isBusy } from './sqlite-busy';

/**
 * Opens the migration's write transaction (`BEGIN IMMEDIATE`), waiting for another process's write lock for up to
 * `wait.timeoutMs`, however short the connection's busy timeout: a migration of a large database holds the lock
 * longer than that (8 s for 5M jobs against 5 s). Each attempt waits in SQLite's busy handler for at most the busy
 * timeout and never past the deadline (the connection's own value is restored after), with a turn of the event
 * loop between attempts (better-sqlite3 waits on this thread). Logs one line once it waits; past the deadline,
 * throws `MigrationLockTimeoutError` with the last SQLITE_BUSY as its cause.
 */
export async function beginMigrationTransaction(runner: StatementRunner, wait: MigrationLockWait): Promise<void> {
  const [row] = await runner.all('PRAGMA busy_timeout', []);
  const busyTimeout = Number(row?.timeout ?? 0);
  // A connection lent without a busy timeout would make each attempt a spin: wait like our own connection does.
  const attemptMs = busyTimeout > 0 ? busyTimeout : MODULE_DEFAULTS.busyTimeout;
  const deadline = Date.now() + wait.timeoutMs;
  let current = busyTimeout;
  let logged = false;
  try {
    for (;;) {
      const bound = Math.max(0, Math.min(attemptMs, deadline - Date.now()));
      if (bound !== current) await runner.all(`PRAGMA busy_timeout = ${(current = bound)}`, []);
      try {
        await runner.run('BEGIN IMMEDIATE', []);
        return;
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (!logged) wait.logger.log(waitingForMigrationLine(wait));
        logged = true;
        if (Date.now() >= deadline) throw new MigrationLockTimeoutError(wait.target, wait.timeoutMs, error);
        await nextTurn();
      }
    }
  } finally {
    if (current !== busyTimeout) await runner.all(`PRAGMA busy_timeout = ${busyTimeout}`, []);
  }
}
