import { deadLetterQueues, declareDeadLetters, redrive } from '../sql/dead-letters.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { DeadLetterStorage } from '../../roles/dead-letter-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `DeadLetterStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresDeadLetterStorage implements DeadLetterStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  declareDeadLetters(queues: { queue: string; deadLetter: string | null }[], now: number): Promise<void> {
    return declareDeadLetters(this.db, queues, now);
  }

  redrive(deadLetterQueue: string, limit: number, now: number): Promise<number> {
    return redrive(this.db, deadLetterQueue, limit, now);
  }

  deadLetterQueues(): Promise<{ queue: string; sources: string[]; count: number }[]> {
    return deadLetterQueues(this.db);
  }
}
