import { Logger } from '@nestjs/common';
import type { DataSource, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';

/** A callback waiting for a commit, with the nesting depth its rows were written at. */
interface WaitingCallback {
  depth: number;
  callback: () => void;
  /** Run instead of `callback` when the rows are rolled back. */
  discarded?: () => void;
}

/**
 * TypeORM's nesting depth of `runner`'s transaction: 1 in the outermost transaction, one more inside each SAVEPOINT.
 * `transactionDepth` is a field of every TypeORM query runner (0.3 and 1.x) but not typed as public; without it the
 * transaction counts as one level, so a rolled-back savepoint then drops every callback (never a phantom one).
 */
function depthOf(runner: QueryRunner): number {
  const depth = (runner as unknown as { transactionDepth?: unknown }).transactionDepth;
  if (typeof depth === 'number') return depth;
  return runner.isTransactionActive ? 1 : 0;
}

/**
 * Runs callbacks when the transaction that wrote some rows commits, on any TypeORM DataSource (a TypeORM subscriber:
 * public API, `dataSource.subscribers`). A callback is dropped, never run, when the outermost transaction rolls back,
 * or when the SAVEPOINT that was innermost when the callback was registered rolls back (its rows are undone with it
 * while the outer transaction may still commit). Used to announce the jobs an add wrote inside the caller's
 * transaction once they exist for everyone (`added` events), and never for jobs that never existed.
 */
export class CommitWatch implements EntitySubscriberInterface {
  private readonly waiting = new WeakMap<QueryRunner, WaitingCallback[]>();
  private readonly logger = new Logger('JobQueue');

  private constructor() {}

  /** The one watch of `dataSource`, registered on first use. */
  static of(dataSource: DataSource): CommitWatch {
    let watch = watches.get(dataSource);
    if (!watch) {
      watch = new CommitWatch();
      dataSource.subscribers.push(watch);
      watches.set(dataSource, watch);
    }
    return watch;
  }

  /**
   * Runs `callback` once the transaction open on `runner` commits for good; at once when none is open (autocommit).
   * `discarded`, if given, runs instead when the rows are rolled back (the transaction, or the savepoint holding them).
   */
  afterCommit(runner: QueryRunner, callback: () => void, discarded?: () => void): void {
    if (!runner.isTransactionActive) {
      this.run(callback);
      return;
    }
    const entry = { depth: depthOf(runner), callback, discarded };
    const callbacks = this.waiting.get(runner);
    if (callbacks) callbacks.push(entry);
    else this.waiting.set(runner, [entry]);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const runner = event.queryRunner;
    const callbacks = this.waiting.get(runner);
    if (!callbacks) return;
    if (runner.isTransactionActive) {
      // A SAVEPOINT released: its rows now belong to the level around it, and share that level's fate.
      const depth = depthOf(runner);
      for (const entry of callbacks) entry.depth = Math.min(entry.depth, depth);
      return;
    }
    this.waiting.delete(runner);
    for (const entry of callbacks) this.run(entry.callback);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    const runner = event.queryRunner;
    const callbacks = this.waiting.get(runner);
    if (!callbacks) return;
    if (!runner.isTransactionActive) {
      this.waiting.delete(runner);
      for (const entry of callbacks) if (entry.discarded) this.run(entry.discarded);
      return;
    }
    // Back to a SAVEPOINT: the rows written inside it are gone, those written before it stay.
    const depth = depthOf(runner);
    const kept = callbacks.filter((entry) => entry.depth <= depth);
    this.waiting.set(runner, kept);
    for (const entry of callbacks) if (entry.depth > depth && entry.discarded) this.run(entry.discarded);
  }

  /** A callback's error must not break the application's COMMIT, which has already succeeded: logged, not thrown. */
  private run(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.logger.error(`A callback run after a transaction committed threw: ${String(error)}`, (error as Error)?.stack);
    }
  }
}

const watches = new WeakMap<DataSource, CommitWatch>();
