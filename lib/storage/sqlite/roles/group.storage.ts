import { CountRow, JobRecord, ListJobsQuery, GroupLoad } from '../../queue-storage.interface';
import { busiestGroups, groupCounts, listGroupJobs } from '../sql/groups.sql';
import { SqliteConnection } from '../sqlite-connection';
import { GroupStorage } from '../../roles/group-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `GroupStorage` on SQLite: see the role's interface for each member. */
export class SqliteGroupStorage implements GroupStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  groupCounts(queue: string, group: string, name?: string): Promise<CountRow[]> {
    return groupCounts(this.db.runner, queue, group, name);
  }

  listGroupJobs(queue: string, group: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listGroupJobs(this.db.runner, queue, group, query);
  }

  busiestGroups(queue: string, limit: number): Promise<GroupLoad[]> {
    return busiestGroups(this.db.runner, queue, limit);
  }
}
