import { ChildRow, FlowRecord, RemoveTreeOutcome } from '../../queue-storage.interface';
import { SqliteConnection } from '../sqlite-connection';
import { cancelDescendants, childrenOf, flowOf, removeTree } from '../sql/flows.sql';
import { dependenciesOf } from '../sql/dependencies.sql';
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

  cancelDescendants(id: string, now: number): Promise<{ id: string; queue: string }[]> {
    return cancelDescendants(this.db.runner, id, now);
  }

  removeTree(id: string): Promise<RemoveTreeOutcome | null> {
    return removeTree(this.db.runner, id);
  }
}
