import { asStorageError } from '../errors/storage.error';
import { QueueRuntime } from '../runtime/queue-runtime';
import { intendedRunAt } from '../storage/shared/flow-wait';
import { SendSpan } from '../telemetry/queue-telemetry';
import { AddBatchCommit } from './add-batch-commit';
import { AddStep, AnnounceAdded, ProducerStorage } from './add-step';

/** Runs the producer's adds (`AddStep`s) through the steps they share, and keeps the batch commit of concurrent adds. */
export class AddWriter {
  private batchCommit?: { storage: ProducerStorage; commit: AddBatchCommit };
  /** Made once, not per add. */
  private readonly emitAdded: AnnounceAdded = (queue, jobId, runAt) =>
    this.runtime.events.emit({ type: 'added', queue, jobId, attempt: 0, runAt: new Date(runAt) });

  constructor(private readonly runtime: QueueRuntime) {}

  /**
   * The steps every add shares, in order: mark the add under way (until it has announced its jobs, this process's
   * events wait: its job may start before it returns, JobEventBus), open the storage, note the caller's open
   * transaction (read in the caller's context: a batch commit writes in the context of the add that started it),
   * insert, end the span, set the timer for a delayed job, announce the jobs (`added`), hand them back. Jobs written by
   * the caller's transaction do not exist for anyone else until it commits, maybe never: they are announced when it
   * commits, and never if it rolls back. Each job is still announced before its `active`: nothing can claim it
   * before the commit, and the commit's own reply announces it.
   * @throws StorageError and its kin (asStorageError): a driver's error never reaches the caller raw.
   */
  async write<T, R>(step: AddStep<T, R>): Promise<R> {
    const endAdd = this.runtime.events.beginAdd();
    try {
      const storage = await this.storageFor(step.send);
      const transaction = storage.openTransactionOf?.(step.manager);
      const inTransaction = step.manager !== undefined || transaction !== undefined;
      // Watched from before the insert: a transaction that ends while the insert's reply is on its way (an add not
      // awaited before the commit) is still heard. Until the reply, its end is kept for it.
      let ended: boolean | undefined;
      let onEnd: ((committed: boolean) => void) | undefined;
      let written: T;
      try {
        if (inTransaction) {
          storage.afterCommitOf(
            step.manager,
            () => (onEnd ? onEnd(true) : (ended = true)),
            () => (onEnd ? onEnd(false) : (ended = false)),
          );
        }
        written = await step.insert(storage, transaction);
      } catch (error) {
        step.send?.failed(error);
        throw asStorageError(error, `QueueProducer.${step.call}`, `queue "${step.queue}"`);
      }
      step.send?.sent(step.idsOf(written));
      this.wakeForDelayed(step.runAts, step.now);
      if (!inTransaction || ended === true) this.announceAll(step, written);
      else if (ended === undefined) {
        // Nothing of these jobs goes out before their `added` at the commit: a claim woken by the commit may start one
        // first (JobEventBus.holdJobs); a rollback releases the hold, the jobs never existed.
        const release = this.runtime.events.holdJobs(step.idsOf(written));
        onEnd = (committed) => {
          if (committed) this.announceAll(step, written);
          release();
        };
      }
      return step.handBack(written, { storage, transaction, inTransaction });
    } finally {
      endAdd();
    }
  }

  /** The batch commit of `storage`'s adds (one storage per application; kept per storage all the same). */
  batchCommitFor(storage: ProducerStorage): AddBatchCommit {
    if (this.batchCommit?.storage !== storage) {
      this.batchCommit = {
        storage,
        commit: new AddBatchCommit((queue, jobs, now) => storage.enqueue(queue, jobs, now), storage.parallelInserts),
      };
    }
    return this.batchCommit.commit;
  }

  /** Emits the `added` event of each job `step` wrote, when something listens. */
  private announceAll<T>(step: AddStep<T, unknown>, written: T): void {
    if (this.runtime.events.observed) step.announce(written, this.emitAdded);
  }

  /** The storage; a failure to open it ends the add's span too (it rejects the add). */
  private async storageFor(send: SendSpan | undefined): Promise<ProducerStorage> {
    if (!send) return this.runtime.storage();
    try {
      return await this.runtime.storage();
    } catch (error) {
      send.failed(error);
      throw error;
    }
  }

  /** Sets this process's timer for the first of these run times that lies ahead (a waiting parent's is not one). */
  private wakeForDelayed(runAts: number[], now: number): void {
    const firstDelayed = runAts.reduce((first, runAt) => (runAt > now && runAt < first ? runAt : first), Infinity);
    if (firstDelayed !== Infinity && firstDelayed === intendedRunAt(firstDelayed)) this.runtime.processing?.wakeAt(firstDelayed);
  }
}
