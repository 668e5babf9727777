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
  /** The number of the latest `completeIn` call: the end of an earlier call's transaction is no longer news. */
  private call = 0;
  /** How the current call's transaction ended while its write's reply was still on its way (a `completeIn` not awaited). */
  private endedEarly: 'committed' | 'rolled-back' | undefined;

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

  /**
   * A `completeIn` starts: throws JobNotRunningError (nothing written) when none may. Returns the call's number, which
   * the end of its transaction is told with.
   */
  begin(): number {
    if (this.holdsAttempt) throw this.notRunning('this attempt was already completed by job.completeIn');
    if (this.ended || this.state === 'lost') throw this.notRunning();
    this.state = 'writing';
    this.endedEarly = undefined;
    return ++this.call;
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

  /**
   * The row is completed in the transaction: follow its end. True when that transaction already committed (its reply
   * came after the commit): the job is completed for good, announce it.
   */
  written(): boolean {
    if (this.endedEarly === 'committed') {
      this.state = 'committed';
      return true;
    }
    this.state = this.endedEarly ?? 'pending';
    return false;
  }

  /**
   * The transaction of call `call` committed. True when the job is completed for good by it now (announce it); a
   * commit heard before the write's reply is kept for `written`.
   */
  committed(call: number): boolean {
    if (call !== this.call) return false;
    if (this.state === 'writing') this.endedEarly = 'committed';
    if (this.state !== 'pending') return false;
    this.state = 'committed';
    return true;
  }

  /**
   * The transaction of call `call` (or the savepoint of the write) rolled back: the job is running again, a new call may
   * complete it.
   */
  discarded(call: number): void {
    if (call !== this.call) return;
    if (this.state === 'writing') this.endedEarly = 'rolled-back';
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
