/** Dead-letter queues: where jobs that fail for good are also enqueued, and redrive (`QueueAdmin.redrive`). */
export interface DeadLetterStorage {
  /**
   * Records, for every process, the dead-letter queue of each queue (null: none). The database's trigger enqueues a
   * dead letter in the statement that fails a job for good, whoever writes it (a worker, lease recovery).
   */
  declareDeadLetters(queues: { queue: string; deadLetter: string | null }[], now: number): Promise<void>;
  /**
   * Moves up to `limit` dead letters of `deadLetterQueue` (pending or failed, oldest first) back into the queue each
   * came from, as fresh jobs (attempts 0, due now), in one statement: they leave the dead-letter queue as they arrive
   * in their own. Returns how many moved.
   */
  redrive(deadLetterQueue: string, limit: number, now: number): Promise<number>;
  /** The queues that some queue names as its dead-letter queue, with how many dead letters each holds. */
  deadLetterQueues(): Promise<{ queue: string; sources: string[]; count: number }[]>;
}
