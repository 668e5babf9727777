import { CancelledDescendant, ChildRow, FlowRecord, JobLinksRecord, RemoveTreeOutcome } from '../../queue-storage.interface';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { cancelDescendants, childrenOf, flowOf, removeTree } from '../sql/flows.sql';
import { dependenciesOf, linkedDependencies, linkedDependents } from '../sql/dependencies.sql';
import { FlowStorage } from '../../roles/flow-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `FlowStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresFlowStorage implements FlowStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  getFlow(id: string): Promise<FlowRecord | null> {
    return flowOf(this.db, id);
  }

  childrenOf(id: string): Promise<ChildRow[]> {
    return childrenOf(this.db, id);
  }

  dependenciesOf(id: string): Promise<ChildRow[]> {
    return dependenciesOf(this.db, id);
  }

  async jobLinksOf(id: string, limit: number): Promise<JobLinksRecord> {
    const dependencies = await linkedDependencies(this.db, id, limit);
    const dependents = await linkedDependents(this.db, id, limit);
    return {
      dependencies: dependencies.rows,
      dependencyCount: dependencies.total,
      dependents: dependents.rows,
      dependentCount: dependents.total,
    };
  }

  cancelDescendants(id: string, now: number): Promise<CancelledDescendant[]> {
    return cancelDescendants(this.db, id, now);
  }

  removeTree(id: string): Promise<RemoveTreeOutcome | null> {
    return removeTree(this.db, id);
  }
}
