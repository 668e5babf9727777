import { JobError } from '../interfaces/job-info.interface';

/** How an attempt ended, as the worker records it. */
export type Outcome =
  | { kind: 'complete'; json: string | null }
  | { kind: 'retry'; error: JobError; runAt: number }
  /** `writeFailed`: the database refused the attempt's first outcome; if it refuses this too, nothing more is tried. */
  | { kind: 'fail'; error: JobError; writeFailed?: true }
  // Handed back at shutdown or cancelled while it ran: nothing to save, log or announce.
  | { kind: 'abandoned' }
  /**
   * The handler threw RateLimitError: the job goes back unspent and its queue pauses until `until` (epoch ms); with
   * `group` (a GroupRateLimitError of a job with a group), only that group of the queue pauses.
   */
  | { kind: 'rateLimited'; until: number; error: JobError; group?: string }
  /** The handler threw SnoozeError: the job goes back unspent, due at `runAt` (`delay` ms from now). */
  | { kind: 'snooze'; runAt: number; delay: number }
  /** Completed by the caller's transaction (`job.completeIn`), which committed: saved and announced at its commit. */
  | { kind: 'committed' };

/** The one abandoned outcome: it carries nothing, so it is shared. */
export const ABANDONED: Outcome = { kind: 'abandoned' };

/** The one committed outcome: it carries nothing, so it is shared. */
export const COMMITTED: Outcome = { kind: 'committed' };

/** An outcome that has something to write. */
export type SavableOutcome = Exclude<Outcome, { kind: 'abandoned' } | { kind: 'rateLimited' } | { kind: 'snooze' } | { kind: 'committed' }>;
