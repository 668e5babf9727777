/**
 * Which storage errors a retry can get past: the database was busy or locked, the connection dropped, or the
 * server asked the client to try again. Everything else (a value the column refuses, a constraint, a syntax error,
 * a full disk) fails the same way every time, so retrying it would only hold the job and its slot for ever.
 */

/** Error codes (SQLite result codes, PostgreSQL SQLSTATEs, Node socket errors) that a retry can get past. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  // SQLite: another connection holds the lock past busy_timeout (extended codes are matched by prefix below).
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  // PostgreSQL: serialization failure, deadlock, lock timeout, too many connections, server shutting down or starting.
  '40001',
  '40P01',
  '55P03',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  // Node sockets: the server went away or cannot be reached for now.
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Messages of errors that carry no code: node-postgres and pg-pool report lost connections in plain text. */
const TRANSIENT_MESSAGE = new RegExp(
  [
    'connection terminated',
    'terminating connection',
    'timeout exceeded when trying to connect',
    'connection timeout',
    'query read timeout',
    // node-postgres, on a query sent to a client whose connection just failed or was closed (by the server, or by
    // the pool after an error) before the pool dropped it: the next try takes another connection.
    'is not queryable',
    'database is locked',
  ].join('|'),
  'i',
);

/** How deep `cause` / `driverError` chains are followed (TypeORM wraps the driver's error, pg-pool wraps causes). */
const MAX_DEPTH = 4;

/** True when a retry of the failed statement may succeed; false for errors that would fail the same way again. */
export function isTransientStorageError(error: unknown): boolean {
  try {
    return chainIsTransient(error);
  } catch {
    // An error object whose fields cannot even be read is nothing a retry will fix.
    return false;
  }
}

function chainIsTransient(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== null && typeof current === 'object'; depth++) {
    const { code, message, driverError, cause } = current as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof code === 'string' && isTransientCode(code)) return true;
    if (typeof message === 'string' && TRANSIENT_MESSAGE.test(message)) return true;
    current = driverError ?? cause;
  }
  return false;
}

function isTransientCode(code: string): boolean {
  // PostgreSQL class 08: connection exceptions. SQLite extended codes: SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE...
  return TRANSIENT_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || /^SQLITE_(BUSY|LOCKED)_/.test(code);
}
