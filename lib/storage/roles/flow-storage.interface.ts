import type { CancelledDescendant, ChildRow, FlowRecord, JobLinksRecord, RemoveTreeOutcome } from '../storage-records';

/** A flow's tree: a job's parent and children, and the calls on a whole tree (`QueueAdmin`, a job's `getChildrenValues`). */
export interface FlowStorage {
  /** A job's parent and children, or null when there is no such job. */
  getFlow(id: string): Promise<FlowRecord | null>;
  /** The children of a job, with their results. */
  childrenOf(id: string): Promise<ChildRow[]>;
  /** The jobs a job depends on (`dependsOn`) that still exist, with their results. */
  dependenciesOf(id: string): Promise<ChildRow[]>;
  /**
   * Up to `limit` of the jobs a job depends on (a deleted one as `removed`) and of the jobs that depend on it, each
   * oldest first, with how many there are of each. Empty lists for a job without any, or no such job.
   */
  jobLinksOf(id: string, limit: number): Promise<JobLinksRecord>;
  /**
   * Cancels every live descendant of a job in one statement; returns each of them, saying which were running (their
   * owners must be told) and which were pending (nobody else announces them).
   */
  cancelDescendants(id: string, now: number): Promise<CancelledDescendant[]>;
  /**
   * Deletes a job and every descendant in one atomic decision: all of them, or none while one of them runs (no
   * claim can fall between the check and the deletes). Null when there is no such job.
   */
  removeTree(id: string): Promise<RemoveTreeOutcome | null>;
}
