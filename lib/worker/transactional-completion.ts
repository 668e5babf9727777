import { CompletionNotCommittedError } from '../errors/completion-not-committed.error';
import { JobNotRunningError } from '../errors/job-not-running.error';
import { JobRecord } from '../storage/queue-storage.interface';

/**
 * Where an attempt's `job.completeIn` stands: `writing` (its statement sent), `pending` (written, the caller's
 * transaction open), `committed`, `rolled-back` (the transaction, or the savepoint that held the write), `lost` (the
 * fenced statement found the attempt no longer this worker's).
 */
type CompletionState = 'none' | 'writing' | 'pending' | 'committed' | 'rolled-back' | 'lost';

/** How a handler that called `completeIn` ended, as the attempt records it. */
export type CompletionEnd = { kind: 'committed' } | { kind: 'failed'; error: unknown };

/**
 * One attempt's transactional completion (`job.completeIn`): made once per attempt, on the first call. The job's row
 * is completed by the caller's transaction, so the attempt's outcome is whatever that transaction did, known from its
 * commit or rollback (the storage's `afterCommitOf`) by the time the handler ends.
 */
export class TransactionalCompletion {
  private state: CompletionState = 'none';
  /** The handler ended: a `completeIn` made from now on would race the attempt's own outcome write. */
  private ended = false;

  constructor(
    private readonly record: JobRecord,
    private readonly queue: string,
  ) {}

  /**
   * Whether the attempt is taken by a completion (written, or committed): its other writes (progress, log, data)
   * are refused from then on. On PostgreSQL they would wait for the row the open transaction holds, which only ends
   * once the handler goes on.
   */
  get holdsAttempt(): boolean {
    return this.state === 'writing' || this.state === 'pending' || this.state === 'committed';
  }

  /** A `completeIn` starts: throws JobNotRunningError (nothing written) when none may. */
  begin(): void {
    if (this.holdsAttempt) throw this.notRunning('this attempt was already completed by job.completeIn');
    if (this.ended || this.state === 'lost') throw this.notRunning();
    this.state = 'writing';
  }

  /** The write was refused before it changed anything (a bad manager, a database error): a new call may try again. */
  refused(): void {
    this.state = 'none';
  }

  /** The fenced statement changed nothing: the attempt is no longer ours. Returns the error for the caller. */
  lost(): JobNotRunningError {
    this.state = 'lost';
    return this.notRunning('its lease expired and another worker took it, or it was cancelled; roll your transaction back');
  }

  /** The row is completed in the open transaction: follow its end. */
  written(): void {
    this.state = 'pending';
  }

  /** The transaction committed: the job is completed for good. */
  committed(): void {
    this.state = 'committed';
  }

  /** The transaction (or the savepoint of the write) rolled back: the job is running again, a new call may complete it. */
  discarded(): void {
    if (this.state === 'pending') this.state = 'rolled-back';
  }

  /**
   * The handler ended (`threw`: with `thrown`): what the attempt comes to, or null when `completeIn` left nothing
   * (refused calls only) and the handler's own end decides. A committed completion stands whatever the handler did
   * afterwards. Otherwise the attempt failed: with the handler's own error if it threw, else CompletionNotCommittedError.
   * A transaction still open is treated as not committed: the failure's write is fenced, so should it commit after
   * all, that write changes nothing and the job stays completed.
   */
  end(threw: boolean, thrown: unknown): CompletionEnd | null {
    this.ended = true;
    switch (this.state) {
      case 'none':
        return null;
      case 'committed':
        return { kind: 'committed' };
      case 'lost':
        return { kind: 'failed', error: threw ? thrown : this.notRunning() };
      case 'rolled-back':
        return { kind: 'failed', error: threw ? thrown : new CompletionNotCommittedError(this.record.id, 'rolled-back') };
      case 'writing':
      case 'pending':
        return { kind: 'failed', error: threw ? thrown : new CompletionNotCommittedError(this.record.id, 'still-open') };
    }
  }

  private notRunning(detail?: string): JobNotRunningError {
    return new JobNotRunningError(this.record.id, this.queue, detail);
  }
}
