import { JobRecord } from '../storage/queue-storage.interface';

/** Most jobs remembered, the most text (data + result, in UTF-16 code units) they may hold, and for how long (ms). */
const MOST_JOBS = 1000;
const MOST_TEXT = 8 * 1024 * 1024;
const KEEP_MS = 30_000;

interface Entry {
  record: JobRecord;
  result: string | null;
  /** Settles true once the completion that deletes the row has landed, false if it did not (the attempt was lost). */
  landed: Promise<boolean>;
  at: number;
  size: number;
}

/**
 * The jobs this process is completing, or has just completed, with a completion that deletes their row (retention
 * keeps nothing of them), remembered briefly with their result. A wait that begins just after such a job finished in
 * this process (an add, then a wait, in one request: the job may run and be gone before the wait's first look) reads
 * it completed here instead of finding it gone. Bounded by count, size and age: it only has to bridge the moment
 * before a wait's first look; once a wait has registered, completions keep the rows of every process's waits.
 */
export class RecentCompletions {
  private readonly entries = new Map<string, Entry>();
  private text = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly mostJobs = MOST_JOBS,
    private readonly mostText = MOST_TEXT,
    private readonly keepMs = KEEP_MS,
  ) {}

  /** `record` completes with `result` in a statement that deletes its row; `landed` tells whether it did. */
  remember(record: JobRecord, result: string | null, landed: Promise<boolean>): void {
    const at = this.now();
    this.forget(record.id);
    const size = record.data.length + (result?.length ?? 0);
    // One job larger than the whole bound is not kept (its wait falls back to what the database shows).
    if (size > this.mostText) return;
    this.entries.set(record.id, { record, result, landed, at, size });
    this.text += size;
    this.prune(at);
  }

  /**
   * The completed record of a job this process completed and deleted within the last moments, once its deleting
   * completion has landed; null when there is none (never completed here, forgotten, or its completion did not land).
   */
  async completed(id: string): Promise<JobRecord | null> {
    const entry = this.entries.get(id);
    if (!entry || this.now() - entry.at > this.keepMs) return null;
    if (!(await entry.landed)) return null;
    const { record, result, at } = entry;
    return { ...record, status: 'completed', result, error: null, lockedBy: null, leaseUntil: null, finishedAt: at, updatedAt: at };
  }

  private forget(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.text -= entry.size;
  }

  /** Oldest first (the map keeps insertion order): drops what is too old, then what is over the bounds. */
  private prune(now: number): void {
    for (const [id, entry] of this.entries) {
      if (now - entry.at <= this.keepMs && this.entries.size <= this.mostJobs && this.text <= this.mostText) return;
      this.entries.delete(id);
      this.text -= entry.size;
    }
  }
}
