import { ExplainFacts } from '../../queue-storage.interface';
import { SqliteConnection } from '../sqlite-connection';
import { explainFacts } from '../sql/explain.sql';
import { ExplainStorage } from '../../roles/explain-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `ExplainStorage` on SQLite: see the role's interface for each member. */
export class SqliteExplainStorage implements ExplainStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  explainFacts(id: string, now: number): Promise<ExplainFacts | null> {
    return explainFacts(this.db.runner, id, now);
  }
}
