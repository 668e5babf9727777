import { JobRecord } from '../storage/queue-storage.interface';
import { REMOVE_ON_COMPLETE, REMOVE_ON_FAIL } from '../utils/job-name.util';
import { SavableOutcome } from './outcome';
import { QueueWorkerContext } from './queue-worker-context';

/** What announcing a saved outcome reaches: the event bus and the process's follow-ups (wake-ups, retention). */
export type AnnounceContext = Pick<QueueWorkerContext, 'events' | 'onRetryScheduled' | 'onFinished' | 'onRemovable'>;

/**
 * Tells the process that `record`'s outcome was saved: its event (completed, retrying, failed), the wake-up for a
 * retry, retention's note of a finished job, and the removal asked by `removeOnComplete` / `removeOnFail`.
 */
export function announceOutcome(context: AnnounceContext, queue: string, record: JobRecord, outcome: SavableOutcome): void {
  const { events } = context;
  if (outcome.kind === 'complete') {
    // The common case, once per job: no event object unless someone listens.
    // It carries what was stored, as `getJob().result` will show it.
    if (events.observed) {
      const result: unknown = outcome.json === null ? null : JSON.parse(outcome.json);
      events.emit({ queue, jobId: record.id, attempt: record.attempts, type: 'completed', result });
    }
    context.onFinished(queue, 'completed');
    if (record.removeOn && record.removeOn & REMOVE_ON_COMPLETE) context.onRemovable?.(record.id, 'completed');
    return;
  }
  const base = { queue, jobId: record.id, attempt: record.attempts };
  switch (outcome.kind) {
    case 'retry':
      events.emit({ ...base, type: 'retrying', error: outcome.error, nextRunAt: new Date(outcome.runAt) });
      context.onRetryScheduled(outcome.runAt);
      return;
    case 'fail':
      events.emit({ ...base, type: 'failed', error: outcome.error });
      context.onFinished(queue, 'failed');
      if (record.removeOn && record.removeOn & REMOVE_ON_FAIL) context.onRemovable?.(record.id, 'failed');
      return;
  }
}
