import { AttemptRef, QueueStorage } from '../storage/queue-storage.interface';

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
        batch.forEach((entry) => entry.reject(error));
      }
    }
    this.flushing = undefined;
  }
}
