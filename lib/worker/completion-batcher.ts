import { AttemptRef, QueueStorage } from '../storage/queue-storage.interface';
import { isTransientStorageError } from '../utils/transient-error.util';

interface PendingCompletion {
  ref: AttemptRef;
  result: string | null;
  onQueued?: () => void;
  resolve(owned: boolean): void;
  reject(error: unknown): void;
}

/**
 * Writes completions of all workers of the process in batches: the first completion is written at once, and
 * those that arrive while a write is in flight go together in the next one. No timer, so an idle queue sees
 * no added latency, and a busy one writes hundreds of completions per statement.
 */
export class CompletionBatcher {
  private pending: PendingCompletion[] = [];
  private flushing?: Promise<void>;

  constructor(
    private readonly storage: QueueStorage,
    private readonly workerId: string,
    private readonly maxBatch: number,
  ) {}

  /**
   * Resolves once written: true when the attempt was still ours, false when it no longer was. `onQueued` runs
   * when its batch's statement has been handed to the storage (before it is written).
   */
  complete(ref: AttemptRef, result: string | null, onQueued?: () => void): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ ref, result, onQueued, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Let completions of the same turn of the event loop join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        const written = this.storage.completeMany(
          batch.map(({ ref, result }) => ({ ref, result })),
          this.workerId,
          Date.now(),
        );
        batch.forEach((entry) => entry.onQueued?.());
        const owned = await written;
        batch.forEach((entry) => entry.resolve(owned.has(entry.ref.id)));
      } catch (error) {
        // One completion the database refuses (a result too large...) fails its whole statement: write the batch
        // one by one, so only that one fails. A busy or lost database fails them all alike: each caller retries.
        if (batch.length > 1 && !isTransientStorageError(error)) await this.writeOneByOne(batch);
        else batch.forEach((entry) => entry.reject(error));
      }
    }
    this.flushing = undefined;
  }

  private async writeOneByOne(batch: PendingCompletion[]): Promise<void> {
    for (const entry of batch) {
      try {
        const owned = await this.storage.completeMany([{ ref: entry.ref, result: entry.result }], this.workerId, Date.now());
        entry.resolve(owned.has(entry.ref.id));
      } catch (error) {
        entry.reject(error);
      }
    }
  }
}
