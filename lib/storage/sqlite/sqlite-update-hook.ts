import { Observable, Subject, filter, map } from 'rxjs';

/** The slice of a node-sqlite3 Database that the update hook needs. */
interface ChangeEmitter {
  on(event: 'change', listener: (type: string, database: string, table: string, rowid: number) => void): unknown;
}

interface RowChange {
  type: string;
  table: string;
}

// node-sqlite3 toggles its native hook on every on('change') call, so a second listener silently turns it
// off (upstream bug). Exactly one listener per connection, fanned out in JavaScript.
const changesByConnection = new WeakMap<object, Subject<RowChange>>();

function changesOf(connection: ChangeEmitter): Subject<RowChange> {
  let changes = changesByConnection.get(connection);
  if (!changes) {
    const subject = new Subject<RowChange>();
    connection.on('change', (type, _database, table) => subject.next({ type, table }));
    changesByConnection.set(connection, subject);
    changes = subject;
  }
  return changes;
}

/**
 * Insert hints for `table` from SQLite's update hook on `connection`. The hook fires before COMMIT, also
 * for rows later rolled back, and only for this connection: a hint, never the truth.
 */
export function insertHintsOf(connection: unknown, table: string): Observable<void> {
  if (typeof (connection as Partial<ChangeEmitter> | null)?.on !== 'function') return new Observable<void>();
  return changesOf(connection as ChangeEmitter).pipe(
    filter((change) => change.type === 'insert' && change.table === table),
    map(() => undefined),
  );
}
