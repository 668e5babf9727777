import type { EntityManager } from 'typeorm';
import type { JobRecord, NewFlowNode, NewGraphNode, NewJobRecord } from '../storage-records';

/** Writing new jobs: one queue's jobs, a flow's tree, in the caller's transaction or on their own (`QueueProducer`). */
export interface EnqueueStorage {
  /**
   * Inserts jobs of one queue atomically and returns one record per input, in input order. An input
   * whose key is taken by a pending or running job returns that job instead.
   */
  enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
  /**
   * `enqueue` written by the caller's TypeORM transaction (`manager` of `dataSource.transaction()`): invisible until
   * it commits, gone if it rolls back; pollers are woken at commit. Throws UnsupportedTransactionError (writing
   * nothing) when that transaction cannot write this queue's tables atomically (another database, another file).
   */
  enqueueIn(manager: EntityManager, queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
  /**
   * `enqueue` of jobs some of which name `dependsOn` (in `manager`'s transaction when given), in one statement that
   * also writes their edges and resolves what already ended. Throws JobNotFoundError (writing nothing) when an id
   * names no job; one removed between that check and the insert counts as removed.
   */
  enqueueDependents(queue: string, jobs: NewJobRecord[], now: number, manager?: EntityManager): Promise<JobRecord[]>;
  /** Inserts a flow's nodes in one atomic write (in `manager`'s transaction when given); their ids, in node order. */
  enqueueFlow(nodes: NewFlowNode[], now: number, manager?: EntityManager): Promise<string[]>;
  /**
   * Inserts a graph's jobs, of any queues, in one atomic statement (in `manager`'s transaction when given), each with
   * the edges to its dependencies (earlier jobs of the graph, and jobs that existed before); their ids, in node
   * order. Throws JobNotFoundError (writing nothing) when an id of a `dependsOn` names no job.
   */
  enqueueGraph(nodes: NewGraphNode[], now: number, manager?: EntityManager): Promise<string[]>;
  /**
   * How many inserts of one queue the producer's batch commit keeps in flight at once (default 1): one where the
   * database has a single writer, more where statements run side by side and their commits' disk flushes overlap.
   */
  readonly parallelInserts?: number;
}
