import { Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { InvalidJobResultError } from '../errors/invalid-job-result.error';
import { JobNotRunningError } from '../errors/job-not-running.error';
import { InvalidStoredDataError } from '../errors/invalid-stored-data.error';
import { asStorageError } from '../errors/storage.error';
import { UnsupportedTransactionError } from '../errors/unsupported-transaction.error';
import { JobEventBus } from '../events/job-event-bus';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { JobProgress } from '../interfaces/job-info.interface';
import { Job } from '../interfaces/job.interface';
import { QueueProcessor } from '../interfaces/queue-processor.interface';
import {
  AttemptRef,
  CallerTransactionStorage,
  ClaimStorage,
  FlowStorage,
  InspectionStorage,
  JobRecord,
} from '../storage/queue-storage.interface';
import { toJobError, withEarlierErrors } from '../utils/error.util';
import { findJsonProblem } from '../utils/json-value.util';
import { serializeProgress } from '../utils/serialize-progress.util';
import { serializeJobData } from '../utils/serialize-job-data.util';
import { MAX_JOB_LOG_LINES, toLogLine } from '../utils/job-logs.util';
import { JobWriters, toJob } from './job-runtime';
import { LazyAbortController } from './lazy-abort-controller';
import { ABANDONED, COMMITTED, Outcome } from './outcome';
import { TransactionalCompletion } from './transactional-completion';
import { asRateLimitError, asSnoozeError, decideRetry, isGroupRateLimit } from './retry-policy';
import { ProcessSpan, QueueTelemetry } from '../telemetry/queue-telemetry';
import { endSpan } from './attempt-span';
import { withTimeout } from './with-timeout';
import { PayloadSchema } from '../interfaces/payload-schema.interface';
import { checkedPayload, describeIssues, isPendingCheck, runPayloadSchema } from '../utils/payload-schema.util';
import { toHandlerData } from '../utils/dto-schema.util';

/** What an attempt uses: its own writes (progress, log, data), its job's children and a fresh read of its job. */
export type AttemptStorage = ClaimStorage &
  Pick<FlowStorage, 'childrenOf' | 'dependenciesOf'> &
  Pick<InspectionStorage, 'getJob'> &
  Pick<CallerTransactionStorage, 'completeIn' | 'afterCommitOf'>;

/** One run of one job in this process. */
export interface RunningAttempt {
  readonly record: JobRecord;
  readonly controller: LazyAbortController;
  /** Its outcome must not be saved: handed back at shutdown, or cancelled by an operator. Per run, not per job id:
   * a cancelled job retried at once can run again here while its first handler, ignoring its signal, still runs. */
  abandoned: boolean;
  /** Its outcome's write is on its way to the database: the poller may claim into its slot already. */
  writeQueued: boolean;
  /** Its `job.completeIn`, once the handler called it. */
  completion?: TransactionalCompletion;
  /** Its handler returned, threw or timed out: its outcome is decided, a `completeIn` from now on is refused. */
  ended?: boolean;
  /**
   * The attempt as every write of it names it, one object for the attempt's life: its `startedAt` (when its handler got
   * the job, recorded as the job's start by the writes that end the attempt), and the size of the batch handler call it
   * runs in (`batch`, set when the call begins).
   */
  readonly ref: AttemptRef;
}

/** What the runner needs from its worker. */
export interface AttemptRunnerContext {
  queue: string;
  processor: QueueProcessor;
  /** The processor's timeout, used when the job has none of its own. */
  timeout: number | undefined;
  /** The processor's backoff, else the module's: used when the job has none of its own. */
  backoff: BackoffOptions;
  storage: AttemptStorage;
  workerId: string;
  events: JobEventBus;
  /** OpenTelemetry: a CONSUMER span per attempt; absent when off or not installed (then nothing is traced). */
  telemetry?: QueueTelemetry;
  logger: Logger;
  /** Whether this run is still the worker's current, unabandoned run of its job (progress is refused otherwise). */
  isCurrent(attempt: RunningAttempt): boolean;
  /** Epoch ms now; retries fall due relative to it. */
  now(): number;
  /** The queue's payload schema in this application: each job's data is checked before its handler runs. */
  schema?: PayloadSchema;
  /** Whether retention keeps nothing of the job once it completed: its completion may delete its row. */
  removesOnComplete?(record: JobRecord): boolean;
  /** A `job.completeIn` transaction committed: the job is completed with `json` as its result (announce it). */
  onCommitted(record: JobRecord, json: string | null): void;
}

/**
 * Runs one attempt: builds the `Job`, calls the handler (under its timeout), stores its progress, and turns its
 * result or throw into an Outcome. It writes no outcome and announces none: the worker does.
 */
export class AttemptRunner {
  constructor(private readonly context: AttemptRunnerContext) {}

  /** The attempt's outcome; `abandoned` when the attempt was handed back or cancelled while it ran. */
  run(attempt: RunningAttempt): Promise<Outcome> {
    const { telemetry } = this.context;
    return telemetry?.active ? this.runTraced(attempt, telemetry) : this.runAttempt(attempt, undefined);
  }

  /** The attempt inside its CONSUMER span, ended by the outcome. */
  private async runTraced(attempt: RunningAttempt, telemetry: QueueTelemetry): Promise<Outcome> {
    const span = telemetry.process(attempt.record);
    let outcome: Outcome;
    try {
      outcome = await this.runAttempt(attempt, span);
    } catch (error) {
      // Not expected (every throw of the handler is an outcome), but the span must not stay open.
      span.failed({ name: 'Error', message: String(error) });
      throw error;
    }
    endSpan(span, outcome, attempt);
    return outcome;
  }

  private async runAttempt(attempt: RunningAttempt, span: ProcessSpan | undefined): Promise<Outcome> {
    const { record, controller } = attempt;
    const { queue, logger, processor } = this.context;
    let job: Job;
    try {
      job = toJob(record, controller, new AttemptWriters(this, attempt), this.context.storage);
    } catch (error) {
      logger.error(`Job ${record.id} (queue ${queue}): stored data is not valid JSON; failing it`);
      const cause = error instanceof Error ? error.message : String(error);
      return {
        kind: 'fail',
        error: { name: InvalidStoredDataError.name, message: `Stored job data is not valid JSON: ${cause}`, attempt: record.attempts },
      };
    }
    // Only a queue with a schema pays for the check (and its turn).
    if (this.context.schema !== undefined) {
      const refused = await this.checkStoredData(job, record, this.context.schema);
      if (refused) return refused;
    }
    const timeout = record.timeout ?? this.context.timeout;
    try {
      // Without a timeout the handler is called directly: one promise and one turn fewer per job.
      const result = span
        ? // In the CONSUMER span's context: the handler's own spans (database, HTTP) are its children, with no user code.
          await span.run(() =>
            timeout === undefined ? processor.process(job) : withTimeout(() => processor.process(job), timeout, controller, record.id),
          )
        : timeout === undefined
          ? await processor.process(job)
          : await withTimeout(() => processor.process(job), timeout, controller, record.id);
      attempt.ended = true;
      const completed = attempt.completion && this.afterCompleteIn(attempt, false, undefined);
      if (completed) return completed;
      if (attempt.abandoned) return ABANDONED;
      // A completion is returned as it is: no earlier errors to read, and no promise more per job.
      const outcome = this.completeOutcome(record, result);
      return outcome.kind === 'complete' ? outcome : this.withEarlierErrors(record, outcome);
    } catch (thrown) {
      attempt.ended = true;
      const completed = attempt.completion && this.afterCompleteIn(attempt, true, thrown);
      if (completed) return completed;
      // A handler that honours its signal rejects with the abort reason: its attempt is handed back or cancelled,
      // not failed, so it must not be logged as "failed, retrying".
      return attempt.abandoned ? ABANDONED : this.withEarlierErrors(record, this.failureOutcome(record, thrown));
    }
  }

  /**
   * The end of a handler that called `job.completeIn` (`threw`: with `thrown`): a committed completion stands (nothing
   * more to write: it was announced at the commit); one not committed fails the attempt (see TransactionalCompletion).
   * Null when only refused calls were made: the handler's own end decides, as without them.
   */
  private afterCompleteIn(attempt: RunningAttempt, threw: boolean, thrown: unknown): Outcome | Promise<Outcome> | null {
    const { record } = attempt;
    const end = attempt.completion!.end(threw, thrown);
    if (end?.kind === 'committed') {
      if (threw) {
        this.context.logger.warn(
          `Job ${record.id} (queue ${this.context.queue}): its handler threw after job.completeIn's transaction committed; ` +
            `the job stays completed: ${String(thrown)}`,
        );
      }
      return COMMITTED;
    }
    if (end === null) return null;
    if (attempt.abandoned) return ABANDONED;
    return this.withEarlierErrors(record, this.failureOutcome(record, end.error));
  }

  /**
   * Completes the running attempt in the caller's transaction (see `Job.completeIn`). Checked first, writing nothing:
   * the result (InvalidJobResultError), the attempt (JobNotRunningError), then the transaction
   * (UnsupportedTransactionError). The write is fenced like every outcome: a statement that changes nothing means the
   * attempt is no longer ours (JobNotRunningError), and the caller's transaction must roll its effects back.
   */
  async completeIn(attempt: RunningAttempt, manager: EntityManager, result: unknown): Promise<void> {
    const { record } = attempt;
    const { queue, storage, workerId } = this.context;
    const json = this.resultJson(record, result);
    // After a timeout the attempt's failure is on its way: a completion now would race it (the fence would settle it).
    if (!this.context.isCurrent(attempt) || attempt.ended) throw new JobNotRunningError(record.id, queue);
    const completion = (attempt.completion ??= new TransactionalCompletion(record, queue));
    const call = completion.begin();
    let owned: boolean;
    try {
      // Watched from before the write: a transaction that ends while the write's reply is on its way (a completeIn not
      // awaited before the commit) is still heard. A manager of no open transaction is refused here, nothing written.
      storage.afterCommitOf(
        manager,
        () => {
          if (completion.committed(call)) this.context.onCommitted(record, json);
        },
        () => completion.discarded(call),
      );
      owned = await storage.completeIn(
        manager,
        {
          ref: attempt.ref,
          result: json,
          remove: this.context.removesOnComplete?.(record),
        },
        workerId,
        this.context.now(),
      );
    } catch (error) {
      completion.refused();
      if (error instanceof UnsupportedTransactionError) throw completeInRefusal(error);
      throw asStorageError(error, 'Job.completeIn', `job ${record.id}`);
    }
    if (!owned) throw completion.lost();
    if (completion.written()) this.context.onCommitted(record, json);
  }

  /**
   * Checks a claimed job's data with the queue's schema. Data written by older code in an old shape, or by another
   * application, fails the job for good (no retry could change it) with `InvalidStoredDataError`, and the handler never
   * sees it; otherwise the handler gets the schema's output.
   */
  private async checkStoredData(job: Job, record: JobRecord, schema: PayloadSchema): Promise<Outcome | null> {
    const check = runPayloadSchema(schema, job.data);
    const result = isPendingCheck(check) ? await check : check;
    const problems = describeIssues(result);
    if (problems === null) {
      // The handler's `Job` is built here, for this attempt: it holds what the schema let through.
      (job as { data: unknown }).data = toHandlerData(schema, (result as { value: unknown }).value);
      return null;
    }
    const { queue, logger } = this.context;
    logger.error(`Job ${record.id} (queue ${queue}): stored data does not match the queue's schema, failing it for good: ${problems}`);
    return {
      kind: 'fail',
      error: {
        name: InvalidStoredDataError.name,
        message: `Stored job data does not match the queue's schema: ${problems}`,
        attempt: record.attempts,
      },
    };
  }

  /**
   * A failed attempt's error carries the earlier attempts' errors. The claim does not return the stored error
   * (it keeps the hot path lean), so a failure reads it back: one read per failed attempt, none per success. A
   * read that fails costs only the history, never the outcome.
   */
  private async withEarlierErrors(record: JobRecord, outcome: Outcome): Promise<Outcome> {
    if (outcome.kind !== 'retry' && outcome.kind !== 'fail') return outcome;
    try {
      const stored = await this.context.storage.getJob(record.id);
      return { ...outcome, error: withEarlierErrors(outcome.error, stored?.error ?? null) };
    } catch (error) {
      this.context.logger.warn(
        `Job ${record.id} (queue ${this.context.queue}): could not read its earlier errors, keeping this one only: ${String(error)}`,
      );
      return outcome;
    }
  }

  /** Stores a running attempt's progress (see `Job.updateProgress`). */
  async updateProgress(attempt: RunningAttempt, progress: JobProgress): Promise<void> {
    const { record } = attempt;
    const { queue, storage, workerId, events } = this.context;
    const json = serializeProgress(queue, record.id, progress);
    if (!this.writable(attempt)) throw new JobNotRunningError(record.id, queue);
    const owned = await storage.updateProgress({ id: record.id, attempt: record.attempts }, workerId, json, this.context.now());
    if (!owned) throw new JobNotRunningError(record.id, queue);
    events.emit({ type: 'progress', queue, jobId: record.id, attempt: record.attempts, progress: JSON.parse(json) as JobProgress });
  }

  /** Appends a line to a running attempt's log (see `Job.log`). */
  async log(attempt: RunningAttempt, line: string): Promise<void> {
    const { record } = attempt;
    const { queue, storage, workerId } = this.context;
    const text = toLogLine(queue, record.id, line);
    if (!this.writable(attempt)) throw new JobNotRunningError(record.id, queue);
    const owned = await storage.appendLog(
      { id: record.id, attempt: record.attempts },
      workerId,
      text,
      MAX_JOB_LOG_LINES,
      this.context.now(),
    );
    if (!owned) throw new JobNotRunningError(record.id, queue);
  }

  /** Stores new data as `add()` would (same validation); the parsed copy is what the job holds from now on. */
  async updateData(attempt: RunningAttempt, data: unknown): Promise<unknown> {
    const { record } = attempt;
    const { queue, storage, workerId, schema } = this.context;
    // Checked as an add is: data its next attempt would refuse must not be stored.
    if (schema !== undefined) data = checkedPayload(queue, await runPayloadSchema(schema, data));
    const json = serializeJobData(queue, data);
    if (!this.writable(attempt)) throw new JobNotRunningError(record.id, queue);
    const owned = await storage.updateData({ id: record.id, attempt: record.attempts }, workerId, json, this.context.now());
    if (!owned) throw new JobNotRunningError(record.id, queue);
    return JSON.parse(json);
  }

  /** Whether the attempt may still write its progress, log or data: current, and not taken by a `completeIn`. */
  private writable(attempt: RunningAttempt): boolean {
    return this.context.isCurrent(attempt) && !attempt.completion?.holdsAttempt;
  }

  private failureOutcome(record: JobRecord, thrown: unknown): Outcome {
    const { queue, logger } = this.context;
    const snooze = asSnoozeError(thrown);
    // Not a failure either: the handler asked to run the job later. Nothing is logged but at debug level.
    if (snooze) return { kind: 'snooze', runAt: this.context.now() + snooze.delay, delay: snooze.delay };
    const error = toJobError(thrown, record.attempts);
    const rateLimit = asRateLimitError(thrown);
    if (rateLimit) {
      // Not a failure of the job: the remote side asked its group (a GroupRateLimitError of a job with one), or the
      // whole queue, to wait. No attempt is spent.
      const group = isGroupRateLimit(rateLimit) ? (record.group ?? undefined) : undefined;
      const what = group === undefined ? 'the queue' : `its group "${group}"`;
      logger.warn(
        `Job ${record.id} (queue ${queue}): rate limited, ${what} pauses for ${rateLimit.delay} ms; the job goes back to pending`,
      );
      const until = this.context.now() + rateLimit.delay;
      return group === undefined ? { kind: 'rateLimited', until, error } : { kind: 'rateLimited', until, error, group };
    }
    const where = `Job ${record.id} (queue ${queue}) attempt ${record.attempts}/${record.maxAttempts}`;
    const decision = decideRetry(record, thrown, this.context.backoff, this.context.now());
    if (decision.kind === 'fail') {
      logger.error(`${where} failed for good: ${error.name}: ${error.message}`, error.stack);
      return { kind: 'fail', error };
    }
    if (decision.storedBackoffInvalid) {
      logger.warn(`Job ${record.id} (queue ${queue}): stored backoff ${JSON.stringify(record.backoff)} is invalid; using the queue's`);
    }
    logger.warn(`${where} failed, retrying in ${decision.delay} ms: ${error.name}: ${error.message}`);
    return { kind: 'retry', error, runAt: decision.runAt };
  }

  /**
   * Output is as strict as input: a result that would not come back unchanged from JSON fails the job with
   * `InvalidJobResultError` rather than being stored as something else. `undefined` (no result) is stored as null.
   */
  private completeOutcome(record: JobRecord, result: unknown): Outcome {
    if (result === undefined || result === null) return COMPLETE_WITHOUT_RESULT;
    let json: string | null;
    try {
      json = this.resultJson(record, result);
    } catch (error) {
      return this.failureOutcome(record, error);
    }
    return { kind: 'complete', json };
  }

  /** A result as it is stored (null for none); throws InvalidJobResultError for one JSON would not give back unchanged. */
  private resultJson(record: JobRecord, result: unknown): string | null {
    if (result === undefined || result === null) return null;
    const problem = findJsonProblem(result, 'result');
    if (problem) throw new InvalidJobResultError(record.id, this.context.queue, problem.path, problem.reason);
    return JSON.stringify(result);
  }
}

/** The storage's refusal of a transaction, told as `completeIn`'s (its own words for a manager that is no transaction). */
function completeInRefusal(error: UnsupportedTransactionError): UnsupportedTransactionError {
  const detail =
    error.reason === 'not-a-transaction'
      ? 'job.completeIn(manager) needs the EntityManager of an open transaction (dataSource.transaction(async (manager) => ...))'
      : error.detail;
  return new UnsupportedTransactionError(error.reason, detail, 'complete');
}

/** The outcome of every attempt that returned nothing: it carries nothing of its own, so it is shared. */
const COMPLETE_WITHOUT_RESULT: Outcome = { kind: 'complete', json: null };

/**
 * What a job's writes go through: one object per attempt, whose methods call the runner for that attempt, instead of
 * three closures and an object literal per job.
 */
class AttemptWriters implements JobWriters {
  constructor(
    private readonly runner: AttemptRunner,
    private readonly attempt: RunningAttempt,
  ) {}

  updateProgress(progress: JobProgress): Promise<void> {
    return this.runner.updateProgress(this.attempt, progress);
  }

  log(line: string): Promise<void> {
    return this.runner.log(this.attempt, line);
  }

  updateData(data: unknown): Promise<unknown> {
    return this.runner.updateData(this.attempt, data);
  }

  completeIn(manager: EntityManager, result: unknown): Promise<void> {
    return this.runner.completeIn(this.attempt, manager, result);
  }
}
