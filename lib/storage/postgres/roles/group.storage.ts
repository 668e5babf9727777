import { CountRow, JobRecord, ListJobsQuery, GroupLoad } from '../../queue-storage.interface';
import { busiestGroups, groupCounts, listGroupJobs } from '../sql/groups.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { GroupStorage } from '../../roles/group-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `GroupStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresGroupStorage implements GroupStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  groupCounts(queue: string, group: string, name?: string): Promise<CountRow[]> {
    return groupCounts(this.db, queue, group, name);
  }

  listGroupJobs(queue: string, group: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listGroupJobs(this.db, queue, group, query);
  }

  busiestGroups(queue: string, limit: number): Promise<GroupLoad[]> {
    return busiestGroups(this.db, queue, limit);
  }
}
