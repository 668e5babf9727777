import { Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidJobStateError } from '../errors/invalid-job-state.error';
import { JobKeyConflictError } from '../errors/job-key-conflict.error';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { JobWaitingForChildrenError } from '../errors/job-waiting-for-children.error';
import { CascadeOptions } from '../interfaces/flow-job.interface';
import { JobStatus } from '../interfaces/job-info.interface';
import { CleanOptions, RetryAllOptions, RetryAllReport } from '../interfaces/queue-info.interface';
import { isWaitingRunAt } from '../storage/shared/flow-wait';
import { assertAdminOptions } from '../utils/assert-options.util';
import { CLEAN_OPTION_KEYS, RETRY_ALL_OPTION_KEYS } from '../utils/option-keys.util';
import { assertQueueName } from '../utils/queue-name.util';
import { LIMITS, describeValue, isDurationMs } from '../utils/validation.util';
import { AdminContext, AdminStorage } from './admin-context';
import { assertJobId, assertStatus, cascadeOf } from './admin-arguments';
import { RedriveOptions, assertRedriveArguments, redriveDeadLetters } from './redrive';

/** Tries of `retry(id)` when the key's holder finishes between the statement and the look-up that explains it. */
const RETRY_ROUNDS = 3;

/** `QueueAdmin`'s control of queues and jobs, in every process; each method is documented on `QueueAdmin`. */
export class QueueControl {
  private readonly logger = new Logger('JobQueue');

  constructor(private readonly context: AdminContext) {}

  /** See `QueueAdmin.pause` and `QueueAdmin.resume`. */
  async setPaused(queue: string, paused: boolean): Promise<void> {
    const storage = await this.context.knownQueue(paused ? 'pause' : 'resume', queue);
    await storage.setPaused(queue, paused, Date.now());
    // Jobs this process claimed ahead would otherwise start during the pause; another process's start (see pause).
    if (paused) await this.context.runtime.processing?.queuePaused(queue);
    else this.context.wake();
  }

  /** See `QueueAdmin.cancel`. */
  async cancel(id: string, options: CascadeOptions): Promise<void> {
    const cascade = cascadeOf('cancel', options);
    const storage = await this.context.storage();
    const processing = () => this.context.runtime.processing;
    const now = Date.now();
    const before = await storage.cancel(assertJobId(id), now);
    if (before === null) throw new JobNotFoundError(id);
    if (before !== 'pending' && before !== 'running') throw new InvalidJobStateError(id, before, 'cancel', ['pending', 'running']);
    if (before === 'running') processing()?.cancelLocally(id);
    else await this.announceCancelled(storage, id);
    if (!cascade) return;
    // A second statement: a crash between the two leaves descendants that simply run (their parent is cancelled).
    const cancelled = await storage.cancelDescendants(id, now);
    for (const job of cancelled) {
      if (job.running) processing()?.cancelLocally(job.id);
      // Like the job itself: nobody runs a pending descendant, so no worker will tell of it.
      else this.context.runtime.events.emit({ type: 'cancelled', queue: job.queue, jobId: job.id, attempt: job.attempt });
    }
    // Waits in this process for any job of the tree end now, not at their next poll.
    this.context.runtime.finishWatcher.lookAgain(cancelled.map((job) => job.id));
  }

  /**
   * A pending job was cancelled: no worker runs it, so none will tell. This process, which cancelled it, emits its
   * `cancelled` event, and its waits for the job end now rather than at their next poll.
   */
  private async announceCancelled(storage: AdminStorage, id: string): Promise<void> {
    const record = await storage.getJob(id);
    if (record?.status === 'cancelled') {
      this.context.runtime.events.emit({ type: 'cancelled', queue: record.queue, jobId: id, attempt: record.attempts });
    }
    this.context.runtime.finishWatcher.lookAgain([id]);
  }

  /** See `QueueAdmin.retry`. */
  async retry(id: string): Promise<void> {
    const storage = await this.context.storage();
    const rowId = assertJobId(id);
    for (let round = 1; ; round++) {
      const changed = await storage.retryFinished({ ids: [rowId] }, Date.now());
      if (changed.length === 1) {
        this.context.wake();
        return;
      }
      const record = await storage.getJob(id);
      if (!record) throw new JobNotFoundError(id);
      if (record.status !== 'failed' && record.status !== 'cancelled') {
        throw new InvalidJobStateError(id, record.status, 'retry', ['failed', 'cancelled']);
      }
      // Still finished: only a live job holding its key keeps it so (its unique key, or the debounce key of one that
      // never started). That job may have finished since: try again.
      const holder =
        record.key === null
          ? undefined
          : ((await storage.debounceKeyHolder(id)) ?? (await storage.findLiveByKeys(record.queue, [record.key]))[0]);
      if (holder && holder.id !== id) {
        throw new JobKeyConflictError(
          record.queue,
          record.key as string,
          `job ${id} cannot be retried while job ${holder.id} (${holder.status}) holds this key; it stays ${record.status}`,
          id,
          holder.id,
        );
      }
      if (round >= RETRY_ROUNDS) throw new InvalidJobStateError(id, record.status, 'retry', ['failed', 'cancelled']);
    }
  }

  /** See `QueueAdmin.retryAll`. */
  async retryAll(queue: string, options?: RetryAllOptions): Promise<number | RetryAllReport> {
    assertQueueName(queue);
    assertAdminOptions('retryAll', options, RETRY_ALL_OPTION_KEYS);
    if (options !== undefined && !(typeof options === 'object' && options !== null && options.report === true)) {
      throw new InvalidArgumentError('retryAll', 'options', 'must be { report: true } or left out');
    }
    const storage = await this.context.knownQueue('retryAll', queue);
    const now = Date.now();
    const retried = await storage.retryFinished({ queue }, now);
    if (retried.length > 0) this.context.wake();
    // Jobs that failed after `now` were not candidates: they are neither retried nor skipped.
    const skipped = (await storage.keyBlockedFailed(queue, now)).map(({ id, key, holderId }) => ({ id, key, heldBy: holderId }));
    if (skipped.length > 0) {
      const shown = skipped.slice(0, 10).map((job) => `${job.id} (key ${JSON.stringify(job.key)} held by job ${job.heldBy})`);
      this.logger.warn(
        `retryAll('${queue}') skipped ${skipped.length} failed job(s) whose unique key a live job holds: ` +
          `${shown.join(', ')}${skipped.length > shown.length ? ', …' : ''}`,
      );
    }
    return options ? { retried, skipped } : retried.length;
  }

  /** See `QueueAdmin.redrive`. */
  async redrive(deadLetterQueue: string, options: RedriveOptions | undefined): Promise<number> {
    const limit = assertRedriveArguments(deadLetterQueue, options);
    const storage = await this.context.knownQueue('redrive', deadLetterQueue);
    const moved = await redriveDeadLetters(storage, deadLetterQueue, limit, Date.now);
    if (moved > 0) this.context.wake();
    return moved;
  }

  /** See `QueueAdmin.remove`. */
  async remove(id: string, options: CascadeOptions): Promise<void> {
    const cascade = cascadeOf('remove', options);
    const storage = await this.context.storage();
    const removable: JobStatus[] = ['pending', 'completed', 'failed', 'cancelled'];
    if (cascade) {
      const outcome = await storage.removeTree(assertJobId(id));
      if (outcome === null) throw new JobNotFoundError(id);
      if ('running' in outcome) throw new InvalidJobStateError(outcome.running, 'running', 'remove', removable);
      // Waits for any job of the tree in this process reject now, not at their next poll.
      this.context.runtime.finishWatcher.lookAgain();
      return;
    }
    const before = await storage.remove(assertJobId(id), Date.now());
    if (before === null) throw new JobNotFoundError(id);
    if (before === 'running') throw new InvalidJobStateError(id, before, 'remove', removable);
    // A wait for it in this process rejects now, not at its next poll.
    this.context.runtime.finishWatcher.lookAgain([id]);
  }

  /** See `QueueAdmin.promote`. */
  async promote(id: string): Promise<boolean> {
    const storage = await this.context.storage();
    const outcome = await storage.promote(assertJobId(id), Date.now());
    if (outcome === null) throw new JobNotFoundError(id);
    if (outcome.status !== 'pending') throw new InvalidJobStateError(id, outcome.status, 'promote', ['pending']);
    if (isWaitingRunAt(outcome.runAt)) {
      // Read on this refusal only: a job waits for dependencies when it was added with some, else for its children.
      const waitingFor = (await storage.jobLinksOf(id, 1)).dependencyCount > 0 ? 'dependencies' : 'children';
      throw new JobWaitingForChildrenError(id, waitingFor);
    }
    if (outcome.promoted) this.context.wake();
    return outcome.promoted;
  }

  /** See `QueueAdmin.clean`. */
  async clean(queue: string, options: CleanOptions): Promise<number> {
    assertQueueName(queue);
    if (typeof options !== 'object' || options === null)
      throw new InvalidArgumentError('clean', 'options', 'must be { status, olderThan? }');
    assertAdminOptions('clean', options, CLEAN_OPTION_KEYS);
    const statuses = Array.isArray(options.status) ? options.status : [options.status];
    if (statuses.length === 0) throw new InvalidArgumentError('clean', 'status', 'must name at least one status');
    for (const status of statuses) {
      assertStatus('clean', status);
      if (status === 'running') throw new InvalidArgumentError('clean', 'status', 'cannot be running: cancel running jobs first');
    }
    const olderThan = options.olderThan ?? 0;
    if (!isDurationMs(olderThan)) {
      const reason = `must be a number of ms from 0 to ${LIMITS.durationMs} (100 years), got ${describeValue(olderThan)}`;
      throw new InvalidArgumentError('clean', 'olderThan', reason);
    }
    const storage = await this.context.knownQueue('clean', queue);
    // "Older than 0 ms" includes a job that finished this very millisecond.
    const removed = await storage.clean(queue, statuses, Date.now() - olderThan + 1);
    // Waits in this process for jobs it deleted reject now, not at their next poll.
    if (removed > 0) this.context.runtime.finishWatcher.lookAgain();
    return removed;
  }
}
