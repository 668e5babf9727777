/**
 * The run history a job keeps in its `runs` column (schema step 12): one record per attempt that ended other than by
 * completing, appended by the statement that ends it (no statement more), the newest `MAX_RUN_RECORDS` kept. The
 * attempt that completes, or runs now, or was cancelled while running, is the row's own (`started_at`,
 * `finished_at`, `locked_by`, which a completion keeps): the hot path writes nothing for the history.
 */
import { MAX_STORED_RUNS } from '../../interfaces/job-info.interface';

/** Most records a job keeps: as many as the errors its error column keeps, so a job snoozed 1,000 times stays small. */
export const MAX_RUN_RECORDS = MAX_STORED_RUNS;

/** How an attempt ended, as its statement records it. */
export type StoredRunOutcome = 'retried' | 'failed' | 'lease-expired' | 'snoozed' | 'handed-back' | 'rate-limited';

/** One stored record: JSON keys as the statements write them. Times in epoch ms. */
export interface StoredRun {
  attempt: number;
  startedAt: number | null;
  endedAt: number;
  owner: string | null;
  outcome: StoredRunOutcome;
  /** The size of the batch handler call the run was part of; null (or absent, in records written before) for none. */
  batch?: number | null;
}
