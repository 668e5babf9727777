import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { JobNotRunningError } from '../errors/job-not-running.error';
import {
  EnqueueStorage,
  NewJobRecord,
  FlowStorage,
  JobRecord,
  KeyedEnqueueStorage,
  ScheduleStorage,
  CallerTransaction,
  CallerTransactionStorage,
} from '../storage/queue-storage.interface';
import { newJobRecord } from '../storage/shared/job-row.mapper';
import { intendedRunAt } from '../storage/shared/flow-wait';
import { AddFlowOptions, FlowJob } from '../interfaces/flow-job.interface';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { prepareFlow } from './prepare-flow';
import { BulkJobItem, JobOptions } from '../interfaces/job-options.interface';
import { EnqueuedJob } from '../interfaces/job.interface';
import { JobInfo } from '../interfaces/job-info.interface';
import { WaitOptions } from '../interfaces/wait-options.interface';
import { QueueDataOf, QueueResultOf } from '../interfaces/queue-registry.interface';
import { toJobInfo } from '../views/to-job-info';
import { MAX_TIMER_MS, describeValue, isTimerDuration } from '../utils/validation.util';
import { ScheduleInfo, ScheduleOptions } from '../interfaces/schedule-options.interface';
import { toScheduleRecord } from '../scheduler/schedule-definition';
import { Scheduler } from '../scheduler/scheduler';
import { QueueRuntime } from '../runtime/queue-runtime';
import { asStorageError } from '../errors/storage.error';
import { assertQueueName } from '../utils/queue-name.util';
import { guardStorage } from '../storage/guard-storage';
import { ChildrenSource, toJob } from '../worker/job-runtime';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { AddBatchCommit } from './add-batch-commit';
import { JobDefaults, keyModeField, prepareJob } from './prepare-job';
import { intendedNextRunAt, isPausedRunAt } from '../storage/shared/schedule-pause';
import {
  ADD_FLOW_OPTION_KEYS,
  BULK_ITEM_FIELDS,
  WAIT_OPTION_KEYS,
  strayFieldProblem,
  unknownOptionProblem,
} from '../utils/option-keys.util';
import { assertAdminOptions } from '../utils/assert-options.util';
import { QueueTelemetry, SendSpan } from '../telemetry/queue-telemetry';

/** What the producer uses: the inserts, a flow's children (for a handle's `getChildrenValues`) and schedules. */
type ProducerStorage = EnqueueStorage & CallerTransactionStorage & KeyedEnqueueStorage & Pick<FlowStorage, 'childrenOf'> & ScheduleStorage;

const NEVER_ABORTED = { signal: new AbortController().signal };

/** Where an add wrote its jobs: what the handles it returns read from, and whether the caller's transaction holds them. */
interface AddWrite {
  storage: ProducerStorage;
  /** The caller's open transaction on a shared connection, if the rows went into one (its rollback unmakes them). */
  transaction?: CallerTransaction;
  /** Written by a transaction that has not committed yet (`manager`, or one open on a shared connection). */
  inTransaction: boolean;
}

/** Announces one job an add inserted now (its `added` event). */
type AnnounceAdded = (queue: string, id: string, runAt: number) => void;

/** One add's write, as `QueueProducer.write` runs it (see there). */
interface AddStep<T, R> {
  /** The public method, for the error's context: `add`, `addBulk`, `addFlow`. */
  call: string;
  queue: string;
  send: SendSpan | undefined;
  manager: EntityManager | undefined;
  insert(storage: ProducerStorage, transaction: CallerTransaction | undefined): Promise<T>;
  idsOf(written: T): string[];
  /** Announces each job inserted now (not a live job found by its key): called only when something listens. */
  announce(written: T, added: AnnounceAdded): void;
  /** The jobs' run times, for this process's timer. */
  runAts: number[];
  now: number;
  /** The handles to resolve with. */
  handBack(written: T, where: AddWrite): R;
}

/** A handle's children while its transaction has not rolled back; after that its id may name another job. */
function childrenWhileAlive(storage: ProducerStorage, transaction: CallerTransaction): ChildrenSource {
  return {
    childrenOf: (id) => (transaction.rolledBack ? Promise.reject(new JobNotFoundError(id)) : storage.childrenOf(id)),
  };
}

/** The one transaction named by the jobs' options (`manager`), if any; items naming different ones are refused. */
function managerOf(queue: string, options: (JobOptions | undefined)[]): EntityManager | undefined {
  let manager: EntityManager | undefined;
  options.forEach((option, index) => {
    const candidate = option && typeof option === 'object' ? option.manager : undefined;
    if (candidate === undefined) return;
    if (typeof candidate !== 'object' || candidate === null) {
      throw new InvalidJobOptionsError(
        queue,
        options.length > 1 ? `items[${index}].manager` : 'manager',
        'must be a TypeORM EntityManager',
      );
    }
    if (manager !== undefined && candidate !== manager) {
      throw new InvalidJobOptionsError(queue, `items[${index}].manager`, "differs from an earlier item's: one addBulk is one transaction");
    }
    manager = candidate;
  });
  if (manager !== undefined && options.some((option) => !option || option.manager === undefined)) {
    const index = options.findIndex((option) => !option || option.manager === undefined);
    throw new InvalidJobOptionsError(
      queue,
      `items[${index}].manager`,
      'is missing while other items name one: one addBulk is one transaction',
    );
  }
  return manager;
}

/**
 * Announces `record` if it was inserted now, not a live job found by its key (created before). `>=`: a batch commit
 * stamps its rows with the latest caller's time.
 */
function announceIfNew(record: JobRecord, now: number, added: AnnounceAdded): void {
  if (record.createdAt >= now) added(record.queue, record.id, record.runAt);
}

/** What a `SingleAdd` asks of its producer. */
interface AddHost {
  batchCommitFor(storage: ProducerStorage): AddBatchCommit;
  enqueued<TData, TResult>(record: JobRecord, where: AddWrite): EnqueuedJob<TData, TResult>;
}

/**
 * `add`'s step. A class, where `addBulk` and `addFlow` give object literals: one object per add on the hot path
 * instead of a context and six closures (those cost 4-5 % of the rate of 1,000 concurrent adds on better-sqlite3).
 */
class SingleAdd<TData, TResult> implements AddStep<JobRecord, EnqueuedJob<TData, TResult>> {
  readonly call = 'add';
  readonly runAts: number[];

  constructor(
    private readonly host: AddHost,
    readonly queue: string,
    private readonly record: NewJobRecord,
    readonly now: number,
    readonly send: SendSpan | undefined,
    readonly manager: EntityManager | undefined,
    /** Throttled or debounced (`keyTtl`, `debounce`). */
    private readonly keyed: boolean,
  ) {
    this.runAts = [record.runAt];
  }

  /** Not `async`: the batch commit's promise is awaited as it is, with no second promise around it per add. */
  insert(storage: ProducerStorage, transaction: CallerTransaction | undefined): Promise<JobRecord> {
    const { queue, record, now, manager } = this;
    // Throttled or debounced: statements of their own, outside the batch commit (they may read or replace).
    if (this.keyed) return storage.enqueueKeyed(queue, record, now);
    if (manager) return storage.enqueueIn(manager, queue, [record], now).then(([stored]) => stored);
    // Inside the application's open transaction on a shared connection: not grouped with adds made beside it.
    if (transaction) return storage.enqueue(queue, [record], now).then(([stored]) => stored);
    return this.host.batchCommitFor(storage).add(queue, record, now);
  }

  idsOf(stored: JobRecord): string[] {
    return [stored.id];
  }

  announce(stored: JobRecord, added: AnnounceAdded): void {
    announceIfNew(stored, this.now, added);
  }

  handBack(stored: JobRecord, where: AddWrite): EnqueuedJob<TData, TResult> {
    return this.host.enqueued<TData, TResult>(stored, where);
  }
}

/** Enqueues jobs. Inject it anywhere; it works in processes that do not process (`processing: false`). */
@Injectable()
export class QueueProducer {
  private batchCommit?: { storage: ProducerStorage; commit: AddBatchCommit };
  /** Made once, not per add. */
  private readonly emitAdded: AnnounceAdded = (queue, jobId, runAt) =>
    this.runtime.events.emit({ type: 'added', queue, jobId, attempt: 0, runAt: new Date(runAt) });
  /** Made once: what each `SingleAdd` calls back. */
  private readonly host: AddHost = {
    batchCommitFor: (storage) => this.batchCommitFor(storage),
    enqueued: (record, where) => this.enqueued(record, where),
  };

  constructor(private readonly runtime: QueueRuntime) {}

  /**
   * A job handed back to a producer: not started (its signal never aborts, it cannot report progress, log or update
   * data), and it can be waited for.
   */
  private enqueued<TData, TResult>(record: JobRecord, { storage, transaction }: AddWrite): EnqueuedJob<TData, TResult> {
    const refuse = () => Promise.reject(new JobNotRunningError(record.id, record.queue));
    const job = toJob<TData>(
      record,
      NEVER_ABORTED,
      { updateProgress: refuse, log: refuse, updateData: refuse },
      transaction ? childrenWhileAlive(storage, transaction) : storage,
    );
    return Object.assign(job, {
      waitUntilFinished: async (options: WaitOptions = {}): Promise<JobInfo<TData, TResult>> => {
        assertAdminOptions('waitUntilFinished', options, WAIT_OPTION_KEYS);
        if (options.timeout !== undefined && !isTimerDuration(options.timeout)) {
          throw new InvalidArgumentError(
            'waitUntilFinished',
            'timeout',
            `must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(options.timeout)}`,
          );
        }
        return toJobInfo<TData, TResult>(await this.runtime.finishWatcher.wait(record.id, options.timeout, transaction));
      },
    });
  }

  /**
   * Enqueues one job. Resolves once it is committed. With `options.key` taken by a live job of the queue,
   * resolves with that job and inserts nothing. A queue declared in `QueueRegistry` types `data` by its name;
   * otherwise `TData` is inferred from `data` or given (`add<Invoice>('billing', invoice)`).
   * With `options.manager`, the job is written by that transaction (see `JobOptions.manager`) and resolves before
   * it commits.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError, UnsupportedTransactionError (nothing
   * is written).
   */
  add<TData = unknown, TResult = unknown, Q extends string = string>(
    queue: Q,
    data: QueueDataOf<Q, TData>,
    options?: JobOptions,
  ): Promise<EnqueuedJob<QueueDataOf<Q, TData>, QueueResultOf<Q, TResult>>> {
    // Not `async`: the write's own promise is returned, not adopted by a second one (two turns fewer per add); a
    // refused argument still rejects, it never throws.
    try {
      return this.write(this.singleAdd<QueueDataOf<Q, TData>, QueueResultOf<Q, TResult>>(queue, data, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Validates `add`'s arguments into its step (throws the typed errors; nothing is written). */
  private singleAdd<TData, TResult>(queue: string, data: unknown, options: JobOptions | undefined): SingleAdd<TData, TResult> {
    assertQueueName(queue);
    const now = Date.now();
    const record = prepareJob(queue, data, options, this.defaultsFor(queue), now);
    const manager = options?.manager === undefined ? undefined : managerOf(queue, [options]);
    const keyMode = keyModeField(record);
    if (keyMode && manager)
      throw new InvalidJobOptionsError(queue, keyMode, 'does not combine with manager: its add is several statements');
    // Started in the caller's context, before the first await: its trace is the request's.
    const send = this.tracing()?.send(queue, 1, { link: false, jobName: record.name });
    if (send) record.traceContext = send.traceContext;
    return new SingleAdd<TData, TResult>(this.host, queue, record, now, send, manager, keyMode !== null);
  }

  /**
   * Enqueues many jobs of one queue in one atomic statement: all are written or none. Resolves with one job
   * per item, in order. Every item is validated before anything is written. Items may name one transaction as
   * `options.manager` (all of them, the same one).
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError, UnsupportedTransactionError (nothing
   * is written).
   */
  async addBulk<TData = unknown, TResult = unknown, Q extends string = string>(
    queue: Q,
    items: BulkJobItem<QueueDataOf<Q, TData>>[],
  ): Promise<EnqueuedJob<QueueDataOf<Q, TData>, QueueResultOf<Q, TResult>>[]> {
    assertQueueName(queue);
    if (!Array.isArray(items)) throw new InvalidJobOptionsError(queue, 'items', 'must be an array of { data, options? }');
    if (items.length === 0) return [];
    const now = Date.now();
    const defaults = this.defaultsFor(queue);
    const records = items.map((item, index) => {
      if (typeof item !== 'object' || item === null || !('data' in item)) {
        throw new InvalidJobOptionsError(queue, `items[${index}]`, 'must be an object { data, options? } with a data property');
      }
      // `{ data, delay: 100 }` would otherwise drop the option silently: job options go in `options`.
      const stray = strayFieldProblem(item, BULK_ITEM_FIELDS, 'a field of a bulk item');
      if (stray) throw new InvalidJobOptionsError(queue, `items[${index}].${stray.key}`, stray.reason);
      const record = prepareJob(queue, item.data, item.options, defaults, now, `items[${index}].`);
      const keyMode = keyModeField(record);
      if (keyMode) throw new InvalidJobOptionsError(queue, `items[${index}].${keyMode}`, 'is only supported by add(), one job at a time');
      return record;
    });
    const manager = managerOf(
      queue,
      items.map((item) => item.options),
    );
    // One PRODUCER span for the whole add; each job's CONSUMER span links to it (it is not each job's parent).
    const send = this.tracing()?.send(queue, records.length, { link: true });
    if (send) for (const record of records) record.traceContext = send.traceContext;
    return this.write({
      call: 'addBulk',
      queue,
      send,
      manager,
      insert: (storage) => (manager ? storage.enqueueIn(manager, queue, records, now) : storage.enqueue(queue, records, now)),
      idsOf: (stored) => stored.map((record) => record.id),
      announce: (stored, added) => stored.forEach((record) => announceIfNew(record, now, added)),
      runAts: records.map((record) => record.runAt),
      now,
      handBack: (stored, where) => stored.map((record) => this.enqueued<QueueDataOf<Q, TData>, QueueResultOf<Q, TResult>>(record, where)),
    });
  }

  /**
   * Enqueues a flow: a parent job that runs only after all of its children completed (and each child after its own
   * children), in one atomic write, across any queues. Resolves with the parent (the root) once committed; its
   * handler reads the children's results with `job.getChildrenResults()`. A child that fails for good (or is
   * cancelled) fails the parent, or with `onChildFailure: 'continue'` lets it run once the others are done.
   * With `options.manager`, the whole flow is written by that transaction.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError, UnsupportedTransactionError (nothing
   * is written).
   */
  async addFlow<TData, TResult = unknown>(flow: FlowJob<TData>, options: AddFlowOptions = {}): Promise<EnqueuedJob<TData, TResult>> {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('addFlow', 'options', 'must be { manager? }');
    const unknownOption = unknownOptionProblem(options, ADD_FLOW_OPTION_KEYS);
    if (unknownOption) throw new InvalidArgumentError('addFlow', `option "${unknownOption.key}"`, unknownOption.reason);
    const now = Date.now();
    const nodes = prepareFlow(flow, (queue) => this.defaultsFor(queue), now);
    const manager = options.manager === undefined ? undefined : managerOf(nodes[0].queue, [options]);
    // One PRODUCER span, parent of every node's CONSUMER spans: a flow is one piece of work, children then parent.
    const send = this.tracing()?.send(nodes[0].queue, nodes.length, { link: false, jobName: nodes[0].job.name });
    if (send) for (const node of nodes) node.job.traceContext = send.traceContext;
    const root = nodes[0];
    return this.write({
      call: 'addFlow',
      queue: root.queue,
      send,
      manager,
      insert: (storage) => storage.enqueueFlow(nodes, now, manager),
      idsOf: (ids) => ids,
      // Every node of the tree is a job added now; the root last, as its children come first.
      announce: (ids, added) => {
        for (let index = 1; index <= nodes.length; index++) {
          const node = nodes[index % nodes.length];
          added(node.queue, ids[index % nodes.length], intendedRunAt(node.job.runAt));
        }
      },
      runAts: nodes.map((node) => node.job.runAt),
      now,
      handBack: (ids, where) =>
        this.enqueued<TData, TResult>({ ...newJobRecord(root.queue, root.job, ids[0], now), runAt: intendedRunAt(root.job.runAt) }, where),
    });
  }

  /**
   * The steps every add shares, in order: mark the add under way (until it has announced its jobs, this process's
   * events wait: its job may start before it returns, JobEventBus), open the storage, note the caller's open
   * transaction (read in the caller's context: a batch commit writes in the context of the add that started it),
   * insert, end the span, set the timer for a delayed job, announce the jobs (`added`), hand them back. Jobs written by
   * the caller's transaction do not exist for anyone else until it commits, maybe never: they are announced when it
   * commits, and never if it rolls back. Each job is still announced before its `active`: nothing can claim it
   * before the commit, and the commit's own reply announces it.
   * @throws StorageError and its kin (asStorageError): a driver's error never reaches the caller raw.
   */
  private async write<T, R>(step: AddStep<T, R>): Promise<R> {
    const endAdd = this.runtime.events.beginAdd();
    try {
      const storage = await this.storageFor(step.send);
      const transaction = storage.openTransactionOf?.(step.manager);
      let written: T;
      try {
        written = await step.insert(storage, transaction);
      } catch (error) {
        step.send?.failed(error);
        throw asStorageError(error, `QueueProducer.${step.call}`, `queue "${step.queue}"`);
      }
      step.send?.sent(step.idsOf(written));
      this.wakeForDelayed(step.runAts, step.now);
      const inTransaction = step.manager !== undefined || transaction !== undefined;
      if (!inTransaction) this.announceAll(step, written);
      else storage.afterCommitOf(step.manager, () => this.announceAll(step, written));
      return step.handBack(written, { storage, transaction, inTransaction });
    } finally {
      endAdd();
    }
  }

  /** Emits the `added` event of each job `step` wrote, when something listens. */
  private announceAll<T>(step: AddStep<T, unknown>, written: T): void {
    if (this.runtime.events.observed) step.announce(written, this.emitAdded);
  }

  /** The telemetry when it records (an SDK is registered), else undefined: adds skip it. */
  private tracing(): QueueTelemetry | undefined {
    const telemetry = this.runtime.telemetry;
    return telemetry?.active ? telemetry : undefined;
  }

  /** The storage; a failure to open it ends the add's span too (it rejects the add). */
  private async storageFor(send: SendSpan | undefined): Promise<ProducerStorage> {
    if (!send) return this.runtime.storage();
    try {
      return await this.runtime.storage();
    } catch (error) {
      send.failed(error);
      throw error;
    }
  }

  /** Sets this process's timer for the first of these run times that lies ahead (a waiting parent's is not one). */
  private wakeForDelayed(runAts: number[], now: number): void {
    const firstDelayed = runAts.reduce((first, runAt) => (runAt > now && runAt < first ? runAt : first), Infinity);
    if (firstDelayed !== Infinity && firstDelayed === intendedRunAt(firstDelayed)) this.runtime.processing?.wakeAt(firstDelayed);
  }

  /**
   * Creates or replaces a recurring job of `queue`: exactly one of `cron` or `every`. Re-upserting an
   * unchanged schedule keeps its next run time, so calling this at every boot is safe.
   * @throws InvalidQueueNameError, InvalidScheduleError (nothing is written).
   */
  async upsertSchedule<TData>(queue: string, name: string, options: ScheduleOptions<TData>): Promise<ScheduleInfo<TData>> {
    assertQueueName(queue);
    const now = Date.now();
    const record = toScheduleRecord(queue, name, options, now);
    await Scheduler.upsert(guardStorage(await this.runtime.storage(), 'QueueProducer'), [record], now);
    const stored = (await this.listSchedules<TData>()).find((schedule) => schedule.queue === queue && schedule.name === name);
    return stored as ScheduleInfo<TData>;
  }

  /** Deletes a recurring job; resolves false when there was none. Jobs it already enqueued stay. */
  async removeSchedule(queue: string, name: string): Promise<boolean> {
    assertQueueName(queue);
    return guardStorage(await this.runtime.storage(), 'QueueProducer').removeSchedule(queue, name);
  }

  /** Every recurring job, with its next run time. */
  async listSchedules<TData = unknown>(): Promise<ScheduleInfo<TData>[]> {
    const records = await guardStorage(await this.runtime.storage(), 'QueueProducer').listSchedules();
    return records.map((record) => ({
      queue: record.queue,
      name: record.name,
      cron: record.cron,
      every: record.every,
      timezone: record.timezone,
      data: JSON.parse(record.data) as TData,
      nextRunAt: new Date(intendedNextRunAt(record.nextRunAt)),
      paused: isPausedRunAt(record.nextRunAt),
    }));
  }

  /** The batch commit of `storage`'s adds (one storage per application; kept per storage all the same). */
  private batchCommitFor(storage: ProducerStorage): AddBatchCommit {
    if (this.batchCommit?.storage !== storage) {
      this.batchCommit = {
        storage,
        commit: new AddBatchCommit((queue, jobs, now) => storage.enqueue(queue, jobs, now), storage.parallelInserts),
      };
    }
    return this.batchCommit.commit;
  }

  private defaultsFor(queue: string): JobDefaults {
    return { maxAttempts: this.runtime.getProcessor(queue)?.settings.maxAttempts ?? this.runtime.options.maxAttempts };
  }
}
