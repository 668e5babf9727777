import { EntityManager } from 'typeorm';
import { JobRecord, NewFlowNode, NewGraphNode, NewJobRecord } from '../../queue-storage.interface';
import { PairingBackend, pairEnqueued } from '../../shared/pair-enqueued';
import { findLiveByKeys, insertJobs } from '../sql/enqueue.sql';
import { PostgresContext, ms } from '../sql/postgres-sql-fragments';
import { insertFlow } from '../sql/flows.sql';
import { insertGraph } from '../sql/graph.sql';
import { PostgresTransactions } from '../postgres-transaction';
import { TransactionStatements } from '../../transactions/transaction-statements';
import { EnqueueStorage } from '../../roles/enqueue-storage.interface';
import { JobNotFoundError } from '../../../errors/job-not-found.error';
import { insertDependents, missingJobs } from '../sql/dependencies.sql';
import { PostgresBackend } from './postgres-backend';

/** `EnqueueStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresEnqueueStorage implements EnqueueStorage {
  private readonly db: PostgresContext;
  private readonly transactions: PostgresTransactions;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
    this.transactions = backend.transactions;
  }

  /**
   * Group commit's inserts in flight per queue. Two: while one waits for its commit's WAL flush the next is
   * already parsed and inserting (the server flushes concurrent commits together). More only split the adds into
   * smaller statements (4 was slower than 1 and 2 in a probe of 1,000 concurrent adds) and take pool connections that
   * claims and completions need.
   */
  get parallelInserts(): number {
    return 2;
  }

  async enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    if (jobs.length === 0) return [];
    return pairEnqueued(this.#pairing, queue, jobs, await insertJobs(this.db, queue, jobs, ms(now)), ms(now));
  }

  async enqueueIn(manager: EntityManager, queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    if (jobs.length === 0) return [];
    // The insert's NOTIFY is part of the caller's transaction: PostgreSQL delivers it at commit, drops it on rollback.
    const db = this.#inTransaction(await this.transactions.runnerFor(manager));
    const pairing: PairingBackend = {
      findByKeys: (keyQueue, keys) => findLiveByKeys(db, keyQueue, keys),
      insert: (insertQueue, insertJobsOf, insertNow) => insertJobs(db, insertQueue, insertJobsOf, ms(insertNow)),
    };
    return pairEnqueued(pairing, queue, jobs, await pairing.insert(queue, jobs, now), ms(now));
  }

  async enqueueDependents(queue: string, jobs: NewJobRecord[], now: number, manager?: EntityManager): Promise<JobRecord[]> {
    if (jobs.length === 0) return [];
    const db = manager ? this.#inTransaction(await this.transactions.runnerFor(manager)) : this.db;
    const [missing] = await missingJobs(db, [...new Set(jobs.flatMap((job) => job.dependsOn ?? []))]);
    if (missing !== undefined) throw new JobNotFoundError(missing);
    return pairEnqueued(this.#pairing, queue, jobs, await insertDependents(db, queue, jobs, ms(now)), ms(now));
  }

  async enqueueFlow(nodes: NewFlowNode[], now: number, manager?: EntityManager): Promise<string[]> {
    const db = manager ? this.#inTransaction(await this.transactions.runnerFor(manager)) : this.db;
    return insertFlow(db, nodes, now);
  }
  async enqueueGraph(nodes: NewGraphNode[], now: number, manager?: EntityManager): Promise<string[]> {
    const db = manager ? this.#inTransaction(await this.transactions.runnerFor(manager)) : this.db;
    const [missing] = await missingJobs(db, [...new Set(nodes.flatMap((node) => node.job.dependsOn ?? []))]);
    if (missing !== undefined) throw new JobNotFoundError(missing);
    return insertGraph(db, nodes, now);
  }

  #inTransaction(runner: ConstructorParameters<typeof TransactionStatements>[0]): PostgresContext {
    return { runner: new TransactionStatements(runner), tables: this.db.tables };
  }

  /** Backend half of `pairEnqueued`. */
  readonly #pairing: PairingBackend = {
    findByKeys: (queue, keys) => findLiveByKeys(this.db, queue, keys),
    insert: (queue, jobs, now) => insertJobs(this.db, queue, jobs, ms(now)),
  };
}
