import { QueueError } from './queue.error';

/**
 * A control call (`pause`, `resume`, `retryAll`, `clean`, `redrive`; the CLI's `jobs`) named a queue nothing knows: no job of it was ever kept, no
 * processor, queue handle, schedule or stored state names it. Refused rather than creating the queue: a mistyped
 * name would otherwise be paused (or cleaned) silently while the real queue goes on.
 */
export class QueueNotFoundError extends QueueError {
  constructor(
    /** The queue named. */
    readonly queue: string,
    /** The call refused (`pause`, `resume`, `retryAll`, `clean`, `redrive`, the CLI's `jobs`). */
    readonly operation: string,
    /** The known queue closest to the name, when one is close enough to be a typo. */
    readonly suggestion: string | null = null,
  ) {
    super(
      `${operation}('${queue}') refused: no queue "${queue}" is known (no job, processor, registered queue, schedule or stored ` +
        `state names it)${suggestion === null ? '' : `. Did you mean queue "${suggestion}"?`}`,
    );
  }
}
