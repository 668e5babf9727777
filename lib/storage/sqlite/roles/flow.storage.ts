import { CancelledDescendant, ChildRow, FlowRecord, JobLinksRecord, RemoveTreeOutcome } from '../../queue-storage.interface';
import { SqliteConnection } from '../sqlite-connection';
import { cancelDescendants, childrenOf, flowOf, removeTree } from '../sql/flows.sql';
import { dependenciesOf, linkedDependencies, linkedDependents } from '../sql/dependencies.sql';
import { FlowStorage } from '../../roles/flow-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `FlowStorage` on SQLite: see the role's interface for each member. */
export class SqliteFlowStorage implements FlowStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  getFlow(id: string): Promise<FlowRecord | null> {
    return flowOf(this.db.runner, id);
  }

  childrenOf(id: string): Promise<ChildRow[]> {
    return childrenOf(this.db.runner, id);
  }

  dependenciesOf(id: string): Promise<ChildRow[]> {
    return dependenciesOf(this.db.runner, id);
  }

  async jobLinksOf(id: string, limit: number): Promise<JobLinksRecord> {
    const dependencies = await linkedDependencies(this.db.runner, id, limit);
    const dependents = await linkedDependents(this.db.runner, id, limit);
    return {
      dependencies: dependencies.rows,
      dependencyCount: dependencies.total,
      dependents: dependents.rows,
      dependentCount: dependents.total,
    };
  }

  cancelDescendants(id: string, now: number): Promise<CancelledDescendant[]> {
    return cancelDescendants(this.db.runner, id, now);
  }

  removeTree(id: string): Promise<RemoveTreeOutcome | null> {
    return removeTree(this.db.runner, id);
  }
}
