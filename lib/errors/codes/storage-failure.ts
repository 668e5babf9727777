/**
 * What a storage error means for the person running the application, read from the codes of the driver's error
 * (SQLite result codes of node-sqlite3 and better-sqlite3, PostgreSQL SQLSTATEs, Node socket and file errors),
 * following TypeORM's `driverError` and `cause` chains. One lookup, used at boot and at run time.
 */

/** The storage failures the library tells apart. */
export type StorageFailureKind =
  | 'not-a-database'
  | 'corrupt'
  | 'cannot-open'
  | 'read-only'
  | 'disk-full'
  | 'connection-refused'
  | 'host-not-found'
  | 'authentication-failed'
  | 'database-missing'
  | 'connection-lost'
  | 'other';

const BY_CODE: ReadonlyMap<string, StorageFailureKind> = new Map([
  ['SQLITE_NOTADB', 'not-a-database'],
  ['SQLITE_CORRUPT', 'corrupt'],
  ['SQLITE_CANTOPEN', 'cannot-open'],
  ['SQLITE_READONLY', 'read-only'],
  ['SQLITE_FULL', 'disk-full'],
  // TypeORM creates the file's folder first: these come from that mkdir.
  ['EACCES', 'cannot-open'],
  ['EPERM', 'cannot-open'],
  ['ENOTDIR', 'cannot-open'],
  ['EEXIST', 'cannot-open'],
  // The CLI's own check of a path that names a folder, not a file.
  ['EISDIR', 'cannot-open'],
  ['EROFS', 'read-only'],
  ['ENOSPC', 'disk-full'],
  ['ECONNREFUSED', 'connection-refused'],
  ['ENOTFOUND', 'host-not-found'],
  ['EAI_AGAIN', 'host-not-found'],
  // PostgreSQL: invalid password, invalid authorization, no such database.
  ['28P01', 'authentication-failed'],
  ['28000', 'authentication-failed'],
  ['3D000', 'database-missing'],
  ['53100', 'disk-full'],
  // PostgreSQL: the session was terminated (by an administrator, or a crash of another backend), or the server is
  // shutting down or starting up. Node: the peer reset the socket.
  ['57P01', 'connection-lost'],
  ['57P02', 'connection-lost'],
  ['57P03', 'connection-lost'],
  ['ECONNRESET', 'connection-lost'],
]);

/**
 * Errors without a code that mean the same: pg's socket closed under a query, and TypeORM's query runner released by
 * its own handler of that connection's error (the next statement of the runner then fails with this name).
 */
const BY_NAME_OR_MESSAGE: ReadonlyArray<[RegExp, StorageFailureKind]> = [
  [/^QueryRunnerAlreadyReleasedError$/, 'connection-lost'],
  [/^Connection terminated( unexpectedly|$)/, 'connection-lost'],
];

/** What to tell the operator for each kind. */
const EXPLANATION: Record<StorageFailureKind, string> = {
  'not-a-database': 'the file is not a SQLite database, or it is encrypted or damaged (check the path; restore it from a backup)',
  corrupt:
    'the database file is corrupted: stop every process using it, run `PRAGMA integrity_check` on it with the sqlite3 tool, ' +
    'and restore it from a backup (or recover it with `.recover`)',
  'cannot-open':
    'the file cannot be opened or created: a part of its path is not a folder, or its folder cannot be created or is not writable by this process',
  'read-only': 'the file or its folder is read-only for this process: the queue must write (jobs, leases, and the -wal and -shm files)',
  'disk-full': 'the disk is full',
  'connection-refused': 'nothing accepts connections at that address (is the server running, and is the port right?)',
  'host-not-found': 'the host name does not resolve',
  'authentication-failed': 'the server refused the user name or password',
  'database-missing': 'the server has no such database',
  'connection-lost':
    'the connection to the server was lost (the server restarted or shut down, or the session was terminated); ' +
    'retry once the server answers again',
  other: 'unexpected database error',
};

/** How deep `cause` / `driverError` chains are followed. */
const MAX_DEPTH = 4;

/** The kind of a storage error; `other` when no known code is found. */
export function storageFailureKind(error: unknown): StorageFailureKind {
  try {
    let current: unknown = error;
    for (let depth = 0; depth < MAX_DEPTH && current !== null && typeof current === 'object'; depth++) {
      const { code, driverError, cause } = current as { code?: unknown; driverError?: unknown; cause?: unknown };
      // Extended SQLite codes (SQLITE_READONLY_DBMOVED, SQLITE_CANTOPEN_ISDIR...) mean what their primary code means.
      const primary = typeof code === 'string' ? code.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1') : undefined;
      // PostgreSQL class 08 (connection exceptions) is a lost connection too, as transient-error.ts reads it.
      const classLost = typeof code === 'string' && /^08[0-9A-Z]{3}$/.test(code) ? 'connection-lost' : undefined;
      const kind = (primary === undefined ? undefined : BY_CODE.get(primary)) ?? classLost ?? kindByNameOrMessage(current);
      if (kind) return kind;
      current = driverError ?? cause;
    }
  } catch {
    // An error whose fields cannot be read says nothing more.
  }
  return 'other';
}

/** The kind an error without a known code names by its class name or its message, if any. */
function kindByNameOrMessage(error: object): StorageFailureKind | undefined {
  const { name, message } = error as { name?: unknown; message?: unknown };
  for (const [pattern, kind] of BY_NAME_OR_MESSAGE) {
    if ((typeof name === 'string' && pattern.test(name)) || (typeof message === 'string' && pattern.test(message))) return kind;
  }
  return undefined;
}

/** What the kind means and what to do about it, for messages. */
export function explainStorageFailure(kind: StorageFailureKind): string {
  return EXPLANATION[kind];
}

/** The message of an error, without throwing on hostile objects. */
export function storageErrorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'an unreadable error';
  }
}
