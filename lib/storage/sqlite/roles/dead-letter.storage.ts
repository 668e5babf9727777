import { deadLetterQueues, declareDeadLetters, redrive } from '../sql/dead-letters.sql';
import { SqliteConnection } from '../sqlite-connection';
import { DeadLetterStorage } from '../../roles/dead-letter-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `DeadLetterStorage` on SQLite: see the role's interface for each member. */
export class SqliteDeadLetterStorage implements DeadLetterStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  declareDeadLetters(queues: { queue: string; deadLetter: string | null }[], now: number): Promise<void> {
    return declareDeadLetters(this.db.background, queues, now);
  }

  async redrive(deadLetterQueue: string, limit: number, now: number): Promise<number> {
    const moved = await redrive(this.db.runner, deadLetterQueue, limit, now);
    if (moved > 0) {
      this.db.inserted();
      this.db.written();
    }
    return moved;
  }

  deadLetterQueues(): Promise<{ queue: string; sources: string[]; count: number }[]> {
    return deadLetterQueues(this.db.runner);
  }
}
