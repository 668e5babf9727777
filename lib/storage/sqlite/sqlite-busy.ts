/** How deep `driverError` / `cause` chains are followed (TypeORM wraps the driver's error). */
const MAX_DEPTH = 4;

/**
 * Whether `error` (or a driver error it wraps) is SQLite's SQLITE_BUSY, any extended code of it: another connection
 * holds a lock this statement needs, so trying again later may succeed.
 */
export function isBusy(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== null && typeof current === 'object'; depth++) {
    const { code, driverError, cause } = current as { code?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof code === 'string' && /^SQLITE_BUSY/.test(code)) return true;
    current = driverError ?? cause;
  }
  return false;
}
