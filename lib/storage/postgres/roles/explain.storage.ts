import { ExplainFacts } from '../../queue-storage.interface';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { explainFacts } from '../sql/explain.sql';
import { ExplainStorage } from '../../roles/explain-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `ExplainStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresExplainStorage implements ExplainStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  explainFacts(id: string, now: number): Promise<ExplainFacts | null> {
    return explainFacts(this.db, id, now);
  }
}
