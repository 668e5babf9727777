import { ShutdownAbortError } from '../errors/shutdown-abort.error';
import { ProcessSpan } from '../telemetry/queue-telemetry';
import { LazyAbortController } from './lazy-abort-controller';
import { Outcome } from './outcome';

/** Ends an attempt's CONSUMER span as its outcome says. */
export function endSpan(span: ProcessSpan, outcome: Outcome, attempt: { readonly controller: LazyAbortController }): void {
  switch (outcome.kind) {
    case 'complete':
    case 'committed':
      return span.completed();
    case 'retry':
      return span.failed(outcome.error, outcome.runAt);
    case 'fail':
      return span.failed(outcome.error);
    case 'rateLimited':
      if (outcome.group !== undefined) {
        return span.ended('group rate limited: the job goes back to pending, unspent', {
          'nestjs_sqlite_queue.group.paused_until': new Date(outcome.until).toISOString(),
        });
      }
      return span.ended('rate limited: the job goes back to pending, unspent', {
        'nestjs_sqlite_queue.queue.paused_until': new Date(outcome.until).toISOString(),
      });
    case 'snooze':
      return span.ended('snoozed: the job goes back to pending, unspent', {
        'nestjs_sqlite_queue.job.snoozed_until': new Date(outcome.runAt).toISOString(),
      });
    case 'abandoned': {
      const reason: unknown = attempt.controller.signal.aborted ? attempt.controller.signal.reason : undefined;
      return span.ended(reason instanceof ShutdownAbortError ? 'handed back at shutdown' : 'cancelled while running');
    }
    default: {
      // A new outcome must say how its span ends: without a case here it would never end (a snooze once did not).
      const unhandled: never = outcome;
      return unhandled;
    }
  }
}
