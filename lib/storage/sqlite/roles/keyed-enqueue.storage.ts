import { JobRecord, NewJobRecord } from '../../queue-storage.interface';
import { insertDebounced, insertThrottled, keyHolder, replaceDebounced } from '../sql/keyed-enqueue.sql';
import { KeyedBackend, enqueueKeyed } from '../../shared/keyed-enqueue';
import { SqliteConnection } from '../sqlite-connection';
import { KeyedEnqueueStorage } from '../../roles/keyed-enqueue-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `KeyedEnqueueStorage` on SQLite: see the role's interface for each member. */
export class SqliteKeyedEnqueueStorage implements KeyedEnqueueStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  async enqueueKeyed(queue: string, job: NewJobRecord, now: number): Promise<JobRecord> {
    if (this.db.fault) throw this.db.fault;
    const runner = this.db.runner;
    // Each statement may write: the hints and the WAL checkpointer hear of them as of any insert.
    const wrote = <T>(value: T): T => {
      if (value !== null) {
        this.db.inserted();
        this.db.written();
      }
      return value;
    };
    // A new row made inside the application's open transaction: its id is noted as a plain insert's is, so a rollback
    // does not give it to a later job.
    const inserted = (id: string | null): string | null => {
      if (id !== null) this.db.callerTransaction()?.noteIds([id]);
      return wrote(id);
    };
    const backend: KeyedBackend = {
      insertThrottled: async (q, j, at) => inserted(await insertThrottled(runner, q, j, at)),
      keyHolder: (q, key, at) => keyHolder(runner, q, key, at),
      replaceDebounced: async (q, j, at) => wrote(await replaceDebounced(runner, q, j, at)),
      insertDebounced: async (q, j, at) => inserted(await insertDebounced(runner, q, j, at)),
    };
    let first = true;
    return enqueueKeyed(backend, queue, job, () => (first ? ((first = false), now) : Date.now()));
  }
}
