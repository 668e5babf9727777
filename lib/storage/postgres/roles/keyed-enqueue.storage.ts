import { JobRecord, NewJobRecord } from '../../queue-storage.interface';
import { insertDebounced, insertThrottled, keyHolder, replaceDebounced } from '../sql/keyed-enqueue.sql';
import { KeyedBackend, enqueueKeyed } from '../../shared/keyed-enqueue';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { KeyedEnqueueStorage } from '../../roles/keyed-enqueue-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `KeyedEnqueueStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresKeyedEnqueueStorage implements KeyedEnqueueStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  enqueueKeyed(queue: string, job: NewJobRecord, now: number): Promise<JobRecord> {
    const db = this.db;
    const backend: KeyedBackend = {
      insertThrottled: (q, j, at) => insertThrottled(db, q, j, at),
      keyHolder: (q, key, at) => keyHolder(db, q, key, at),
      replaceDebounced: (q, j, at) => replaceDebounced(db, q, j, at),
      insertDebounced: (q, j, at) => insertDebounced(db, q, j, at),
    };
    let first = true;
    return enqueueKeyed(backend, queue, job, () => (first ? ((first = false), now) : Date.now()));
  }
}
