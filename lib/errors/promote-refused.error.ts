import { QueueError } from './queue.error';

/** Why `promote` refused to copy. */
export type PromoteRefusal = 'running-jobs' | 'live-processes' | 'target-not-empty' | 'schema-mismatch' | 'verification-failed';

/**
 * `nestjs-sqlite-queue promote` refused to copy the SQLite queue into PostgreSQL, or found the copy different from
 * its source before committing (`reason`): jobs of the source still run under a live lease (the message names the
 * holders: stop the workers first), processes are still live on the file (its processes table names them; `--force`
 * copies anyway), the target schema already holds jobs, the two schemas' columns differ, or the
 * verification after the copy found other counts or ids. Nothing is written to PostgreSQL in any case: the copy's
 * transaction is rolled back, and the SQLite file is only ever read.
 */
export class PromoteRefusedError extends QueueError {
  constructor(
    /** What stopped the copy. */
    readonly reason: PromoteRefusal,
    detail: string,
  ) {
    super(`promote refused (${reason}): ${detail}; nothing was written`);
  }
}
