import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { JobRecord, NewFlowNode, NewGraphNode, NewJobRecord } from '../../queue-storage.interface';
import { InsertedRow, PairingBackend, pairEnqueued } from '../../shared/pair-enqueued';
import { findLiveByKeys, insertJobs } from '../sql/enqueue.sql';
import { SqliteConnection } from '../sqlite-connection';
import { TransactionStatements, dataSourceOfManager } from '../../transactions/transaction-statements';
import { insertFlow } from '../sql/flows.sql';
import { insertGraph } from '../sql/graph.sql';
import { sqliteTransactionRunner } from '../../transactions/sqlite-transaction';
import { CommitWatch } from '../../transactions/commit-watch';
import { keepRolledBackIds } from '../sql/sequence.sql';
import { SqliteTransactionWatch } from '../../transactions/sqlite-transaction-watch';
import { EnqueueStorage } from '../../roles/enqueue-storage.interface';
import { JobNotFoundError } from '../../../errors/job-not-found.error';
import { insertDependents, missingJobs } from '../sql/dependencies.sql';
import { StatementRunner } from '../../shared/statement-runner';
import { SqliteBackend } from './sqlite-backend';

/** Whether the DataSource's driver binds parameters cheaply (better-sqlite3; node-sqlite3 does not): see insertJobs. */
function bindsCheaply(source: DataSource): boolean {
  return source.options.type === 'better-sqlite3';
}

/** `EnqueueStorage` on SQLite: see the role's interface for each member. */
export class SqliteEnqueueStorage implements EnqueueStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  async enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    // Jobs written to a deleted or replaced file would be lost at restart, unseen by every other process.
    if (this.db.fault) throw this.db.fault;
    try {
      return pairEnqueued(this.#pairing, queue, jobs, await this.#insert(queue, jobs, now), now);
    } catch (error) {
      this.db.noteFailure(error);
      throw this.db.fault ?? error;
    }
  }

  async enqueueIn(manager: EntityManager, queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> {
    if (this.db.fault) throw this.db.fault;
    const runner = sqliteTransactionRunner(manager, this.db.source);
    const statements = new TransactionStatements(runner);
    const pairing: PairingBackend = {
      findByKeys: (keyQueue, keys) => findLiveByKeys(statements, keyQueue, keys),
      insert: async (insertQueue, insertJobsOf, insertNow) => {
        const inserted = await insertJobs(statements, insertQueue, insertJobsOf, insertNow, bindsCheaply(dataSourceOfManager(manager)));
        if (inserted.length > 0) this.#afterCommit(manager, runner, inserted);
        return inserted;
      },
    };
    return pairEnqueued(pairing, queue, jobs, await pairing.insert(queue, jobs, now), now);
  }

  async enqueueDependents(queue: string, jobs: NewJobRecord[], now: number, manager?: EntityManager): Promise<JobRecord[]> {
    if (this.db.fault) throw this.db.fault;
    const runner = manager ? sqliteTransactionRunner(manager, this.db.source) : undefined;
    const statements: StatementRunner = runner ? new TransactionStatements(runner) : this.db.runner;
    const [missing] = await missingJobs(statements, [...new Set(jobs.flatMap((job) => job.dependsOn ?? []))]);
    if (missing !== undefined) throw new JobNotFoundError(missing);
    const inserted = await insertDependents(statements, queue, jobs, now);
    if (manager && runner) this.#afterCommit(manager, runner, inserted);
    else {
      this.db.callerTransaction()?.noteIds(inserted.map((row) => row.id));
      this.db.inserted();
      this.db.written();
    }
    return pairEnqueued(this.#pairing, queue, jobs, inserted, now);
  }

  async enqueueFlow(nodes: NewFlowNode[], now: number, manager?: EntityManager): Promise<string[]> {
    if (this.db.fault) throw this.db.fault;
    if (manager) {
      const runner = sqliteTransactionRunner(manager, this.db.source);
      const ids = await insertFlow(new TransactionStatements(runner), nodes, now);
      this.#afterCommit(
        manager,
        runner,
        ids.map((id) => ({ id })),
      );
      return ids;
    }
    const ids = await insertFlow(this.db.runner, nodes, now);
    this.db.callerTransaction()?.noteIds(ids);
    this.db.inserted();
    this.db.written();
    return ids;
  }

  async enqueueGraph(nodes: NewGraphNode[], now: number, manager?: EntityManager): Promise<string[]> {
    if (this.db.fault) throw this.db.fault;
    const runner = manager ? sqliteTransactionRunner(manager, this.db.source) : undefined;
    const statements: StatementRunner = runner ? new TransactionStatements(runner) : this.db.runner;
    const [missing] = await missingJobs(statements, [...new Set(nodes.flatMap((node) => node.job.dependsOn ?? []))]);
    if (missing !== undefined) throw new JobNotFoundError(missing);
    const ids = await insertGraph(statements, nodes, now);
    if (manager && runner)
      this.#afterCommit(
        manager,
        runner,
        ids.map((id) => ({ id })),
      );
    else {
      this.db.callerTransaction()?.noteIds(ids);
      this.db.inserted();
      this.db.written();
    }
    return ids;
  }

  /**
   * Wakes this process's poller when the caller's transaction commits (its jobs are invisible before), and notes the
   * ids it was given (a rollback gives them back to SQLite's sequence, which must not hand them out again).
   */
  #afterCommit(manager: EntityManager, runner: QueryRunner, inserted: { id: string }[]): void {
    const source = dataSourceOfManager(manager);
    SqliteTransactionWatch.of(source, keepRolledBackIds)
      .transactionOf(runner)
      ?.noteIds(inserted.map((row) => row.id));
    CommitWatch.of(source).afterCommit(runner, () => {
      this.db.inserted();
      this.db.written();
    });
  }

  /** The insert statement alone: the rows it inserted, in input order. */
  async #insert(queue: string, jobs: NewJobRecord[], now: number): Promise<InsertedRow[]> {
    const inserted = await insertJobs(this.db.runner, queue, jobs, now, bindsCheaply(this.db.source));
    if (inserted.length > 0) {
      // Made inside the application's open transaction (a borrowed connection): its ids may be given back.
      this.db.callerTransaction()?.noteIds(inserted.map((row) => row.id));
      this.db.inserted();
      this.db.written();
    }
    return inserted;
  }

  /** Backend half of `pairEnqueued`. */
  readonly #pairing: PairingBackend = {
    findByKeys: (queue, keys) => findLiveByKeys(this.db.runner, queue, keys),
    insert: (queue, jobs, now) => this.#insert(queue, jobs, now),
  };
}
