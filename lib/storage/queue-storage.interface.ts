import type { Observable } from 'rxjs';
import { JobStatus } from '../interfaces/job-info.interface';

/** A job to insert, already validated and serialised. Times are epoch ms. */
export interface NewJobRecord {
  data: string;
  priority: number;
  runAt: number;
  maxAttempts: number;
  backoff: string | null;
  timeout: number | null;
  key: string | null;
}

/** A stored job row, in storage-neutral form. Times are epoch ms. */
export interface JobRecord {
  id: string;
  queue: string;
  status: JobStatus;
  data: string;
  priority: number;
  runAt: number;
  attempts: number;
  maxAttempts: number;
  backoff: string | null;
  timeout: number | null;
  key: string | null;
  lockedBy: string | null;
  leaseUntil: number | null;
  result: string | null;
  error: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
}

/** How many due jobs one queue may take in a claim. */
export interface ClaimRequest {
  queue: string;
  limit: number;
}

/** Identifies one attempt of one job: writes are fenced by it so a stale attempt cannot overwrite a newer one. */
export interface AttemptRef {
  id: string;
  attempt: number;
}

/** A job whose lease expired, after recovery. */
export interface RecoveredJob {
  id: string;
  queue: string;
  status: 'pending' | 'failed';
  attempts: number;
}

/** Number of jobs per queue and status. */
export interface CountRow {
  queue: string;
  status: JobStatus;
  count: number;
}

/**
 * Everything the queue needs from a database. The poller, workers, producer and admin only talk to
 * this; a backend keeps all of its SQL behind it.
 */
export interface QueueStorage {
  /** Hints that jobs were inserted through this process's connection. Never authoritative. */
  readonly insertHints$: Observable<void>;
  /** Opens the database if owned, sets pragmas and creates the schema idempotently. */
  initialize(): Promise<void>;
  /** Releases what `initialize` opened. */
  close(): Promise<void>;
  /**
   * Inserts jobs of one queue atomically and returns one record per input, in input order. An input
   * whose key is taken by a pending or running job returns that job instead.
   */
  enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
  /** Atomically takes up to each request's limit of due pending jobs, marking them running for `workerId`. */
  claim(requests: ClaimRequest[], workerId: string, now: number, leaseUntil: number): Promise<JobRecord[]>;
  /** Marks an attempt completed; false when this worker no longer owns it. */
  complete(ref: AttemptRef, workerId: string, result: string | null, now: number): Promise<boolean>;
  /** Puts an attempt back to pending until `runAt`, with its error; false when no longer owned. */
  retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean>;
  /** Marks an attempt failed for good; false when no longer owned. */
  fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean>;
  /** Hands attempts back to pending as if they never started; returns how many were still owned. */
  release(refs: AttemptRef[], workerId: string, now: number): Promise<number>;
  /** Extends the lease of every job `workerId` runs, in one statement. */
  extendLeases(workerId: string, leaseUntil: number, now: number): Promise<number>;
  /** Requeues (or fails, when out of attempts) running jobs whose lease ended before `now`. */
  recoverExpiredLeases(now: number): Promise<RecoveredJob[]>;
  /** One job, or null. */
  getJob(id: string): Promise<JobRecord | null>;
  /** Job counts per queue and status, optionally of one queue. */
  getCounts(queue?: string): Promise<CountRow[]>;
}
