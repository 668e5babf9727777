import type { EntityManager } from 'typeorm';
import { EnqueuedJob } from '../interfaces/job.interface';
import { CallerTransaction, JobRecord, NewJobRecord } from '../storage/queue-storage.interface';
import { SendSpan } from '../telemetry/queue-telemetry';
import { AddBatchCommit } from './add-batch-commit';
import { AddStep, AddWrite, AnnounceAdded, ProducerStorage, announceIfNew } from './add-step';

/** What a `SingleAdd` asks of its producer. */
export interface AddHost {
  batchCommitFor(storage: ProducerStorage): AddBatchCommit;
  enqueued<TData, TResult>(record: JobRecord, where: AddWrite): EnqueuedJob<TData, TResult>;
}

/**
 * `add`'s step. A class, where `addBulk` and `addFlow` give object literals: one object per add on the hot path
 * instead of a context and six closures (those cost 4-5 % of the rate of 1,000 concurrent adds on better-sqlite3).
 */
export class SingleAdd<TData, TResult> implements AddStep<JobRecord, EnqueuedJob<TData, TResult>> {
  readonly call = 'add';
  readonly runAts: number[];

  constructor(
    private readonly host: AddHost,
    readonly queue: string,
    private readonly record: NewJobRecord,
    readonly now: number,
    readonly send: SendSpan | undefined,
    readonly manager: EntityManager | undefined,
    /** Throttled or debounced (`keyTtl`, `debounce`). */
    private readonly keyed: boolean,
  ) {
    this.runAts = [record.runAt];
  }

  /** Not `async`: the batch commit's promise is awaited as it is, with no second promise around it per add. */
  insert(storage: ProducerStorage, transaction: CallerTransaction | undefined): Promise<JobRecord> {
    const { queue, record, now, manager } = this;
    // Throttled or debounced: statements of their own, outside the batch commit (they may read or replace).
    if (this.keyed) return storage.enqueueKeyed(queue, record, now);
    // With dependencies: a statement of its own, whose trigger writes the edges (outside the batch commit).
    if (record.dependsOn) return storage.enqueueDependents(queue, [record], now, manager).then(([stored]) => stored);
    if (manager) return storage.enqueueIn(manager, queue, [record], now).then(([stored]) => stored);
    // Inside the application's open transaction on a shared connection: not grouped with adds made beside it.
    if (transaction) return storage.enqueue(queue, [record], now).then(([stored]) => stored);
    return this.host.batchCommitFor(storage).add(queue, record, now);
  }

  idsOf(stored: JobRecord): string[] {
    return [stored.id];
  }

  announce(stored: JobRecord, added: AnnounceAdded): void {
    announceIfNew(stored, this.now, added);
  }

  handBack(stored: JobRecord, where: AddWrite): EnqueuedJob<TData, TResult> {
    return this.host.enqueued<TData, TResult>(stored, where);
  }
}
