import { SnoozeLimitError } from '../errors/snooze-limit.error';
import { MODULE_DEFAULTS } from '../module-defaults.constants';
import { AttemptRef, JobRecord } from '../storage/queue-storage.interface';
import { toJobError } from '../utils/error.util';
import { SavableOutcome } from './outcome';
import { QueueWorkerContext } from './queue-worker-context';

/** What writing a snooze reaches: the storage's snooze, the writer's retry rule, the event and the wake-up. */
export type SnoozeContext = Pick<
  QueueWorkerContext,
  'storage' | 'outcomes' | 'workerId' | 'logger' | 'events' | 'onRetryScheduled' | 'maxSnoozes'
>;

/** Writes the snoozes of one queue's jobs (a handler threw SnoozeError): the job goes back unspent, due later. */
export class SnoozeWriter {
  /** `signal`: aborted at forced shutdown, when a failing write is no longer retried. */
  constructor(
    private readonly queue: string,
    private readonly context: SnoozeContext,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Writes a snooze of the attempt `ref`, with the start its handler had and the batch call size it carries (the ref's
   * `startedAt`, `batch`): null once written (or lost), or the failure to save instead when the job crossed `maxSnoozes`.
   * A write the database refuses is logged; the job's lease then expires and recovery requeues it, as after a crash.
   */
  async write(record: JobRecord, runAt: number, delay: number, ref: AttemptRef): Promise<SavableOutcome | null> {
    const { storage, workerId, logger } = this.context;
    const maxSnoozes = this.context.maxSnoozes ?? MODULE_DEFAULTS.maxSnoozes;
    let written: 'snoozed' | 'exhausted' | 'lost';
    try {
      // Through the writer's retry rule, like every other outcome: a busy database must not strand the job.
      written = await this.context.outcomes.retrying({ ref, queue: this.queue, kind: 'snooze', logger, signal: this.signal }, () =>
        storage.snooze(ref, workerId, { runAt, delay }, maxSnoozes, Date.now()),
      );
    } catch (error) {
      logger.error(`Job ${record.id} (queue ${this.queue}): saving its snooze failed; its lease will expire and free it: ${String(error)}`);
      return null;
    }
    if (written === 'exhausted') {
      const error = new SnoozeLimitError(record.id, maxSnoozes);
      logger.error(`Job ${record.id} (queue ${this.queue}) attempt ${record.attempts}: ${error.message}`);
      return { kind: 'fail', error: toJobError(error, record.attempts) };
    }
    if (written === 'lost') {
      logger.warn(`Job ${record.id} (queue ${this.queue}): no longer owned when its snooze was saved; snooze discarded`);
      return null;
    }
    const { events } = this.context;
    if (events.observed) {
      events.emit({ queue: this.queue, jobId: record.id, attempt: record.attempts, type: 'snoozed', nextRunAt: new Date(runAt), delay });
    }
    this.context.onRetryScheduled(runAt);
    return null;
  }
}
