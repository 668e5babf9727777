import { Injectable } from '@nestjs/common';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { JobRecord } from '../storage/queue-storage.interface';
import { newJobRecord } from '../storage/shared/job-row.mapper';
import { intendedRunAt } from '../storage/shared/flow-wait';
import { AddFlowOptions, FlowJob } from '../interfaces/flow-job.interface';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { prepareFlow } from './prepare-flow';
import { prepareGraph } from './prepare-graph';
import { AddGraphOptions, GraphJob } from '../interfaces/graph-job.interface';
import { BulkJobItem, JobOptions } from '../interfaces/job-options.interface';
import { EnqueuedJob } from '../interfaces/job.interface';
import { QueueDataOf, QueueResultOf } from '../interfaces/queue-registry.interface';
import { ScheduleInfo, ScheduleOptions } from '../interfaces/schedule-options.interface';
import { isScheduleName, toScheduleRecord } from '../scheduler/schedule-definition';
import { Scheduler } from '../scheduler/scheduler';
import { QueueRuntime } from '../runtime/queue-runtime';
import { assertQueueName } from '../utils/queue-name.util';
import { guardStorage } from '../storage/guard-storage';
import { AddWrite, announceIfNew } from './add-step';
import { AddWriter } from './add-writer';
import { enqueuedJob } from './enqueued-job';
import { managerOf } from './manager-option';
import { JobDefaults, keyModeField, prepareJob } from './prepare-job';
import { AddHost, SingleAdd } from './single-add';
import { intendedNextRunAt, isPausedRunAt } from '../storage/shared/schedule-pause';
import {
  ADD_FLOW_OPTION_KEYS,
  ADD_GRAPH_OPTION_KEYS,
  BULK_ITEM_FIELDS,
  strayFieldProblem,
  unknownOptionProblem,
} from '../utils/option-keys.util';
import { QueueTelemetry } from '../telemetry/queue-telemetry';
import { PayloadSchema } from '../interfaces/payload-schema.interface';
import { checkScheduleData, checkedPayload, isPendingCheck, runPayloadSchema } from '../utils/payload-schema.util';
import { checkBulkData, checkFlowData, checkGraphData } from './check-payloads';

/**
 * Enqueues jobs. Inject it anywhere; it works in processes that do not process (`processing: false`). Each add
 * validates its arguments here into a step (`AddStep`: `SingleAdd`, or an object literal) that `AddWriter` runs; the
 * handles it resolves with come from `enqueuedJob`.
 */
@Injectable()
export class QueueProducer {
  private readonly writer: AddWriter;
  /** Made once: what each `SingleAdd` calls back. */
  private readonly host: AddHost = {
    batchCommitFor: (storage) => this.writer.batchCommitFor(storage),
    enqueued: (record, where) => this.enqueued(record, where),
  };

  constructor(private readonly runtime: QueueRuntime) {
    this.writer = new AddWriter(runtime);
  }

  /** A job handed back to a producer, to wait for (see `enqueuedJob`). */
  private enqueued<TData, TResult>(record: JobRecord, where: AddWrite): EnqueuedJob<TData, TResult> {
    return enqueuedJob<TData, TResult>(this.runtime, record, where);
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
      // Only a queue with a schema pays for one: without any in the application, this reads one field.
      const schemas = this.runtime.payloadSchemas;
      const schema = schemas === undefined ? undefined : schemas.get(queue);
      if (schema !== undefined) return this.addChecked<QueueDataOf<Q, TData>, QueueResultOf<Q, TResult>>(schema, queue, data, options);
      return this.writer.write(this.singleAdd<QueueDataOf<Q, TData>, QueueResultOf<Q, TResult>>(queue, data, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** `add` of a queue with a schema: the schema's output is what is validated further and stored. */
  private addChecked<TData, TResult>(
    schema: PayloadSchema,
    queue: string,
    data: unknown,
    options: JobOptions | undefined,
  ): Promise<EnqueuedJob<TData, TResult>> {
    const check = runPayloadSchema(schema, data);
    if (isPendingCheck(check)) {
      return check.then((result) => this.writer.write(this.singleAdd<TData, TResult>(queue, checkedPayload(queue, result), options)));
    }
    return this.writer.write(this.singleAdd<TData, TResult>(queue, checkedPayload(queue, check), options));
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
    const schema = this.runtime.schemaFor(queue);
    // The schema's outputs, all checked before any item is prepared: one refused item refuses the whole bulk.
    const checked = schema === undefined ? undefined : await checkBulkData(schema, queue, items);
    const now = Date.now();
    const defaults = this.defaultsFor(queue);
    // Array.from rather than map: a sparse array's holes are items too (undefined), refused rather than skipped.
    const records = Array.from(items, (item, index) => {
      if (typeof item !== 'object' || item === null || !('data' in item)) {
        throw new InvalidJobOptionsError(queue, `items[${index}]`, 'must be an object { data, options? } with a data property');
      }
      // `{ data, delay: 100 }` would otherwise drop the option silently: job options go in `options`.
      const stray = strayFieldProblem(item, BULK_ITEM_FIELDS, 'a field of a bulk item');
      if (stray) throw new InvalidJobOptionsError(queue, `items[${index}].${stray.key}`, stray.reason);
      const data = checked === undefined ? item.data : checked[index];
      const record = prepareJob(queue, data, item.options, defaults, now, `items[${index}].`);
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
    const dependents = records.some((record) => record.dependsOn);
    return this.writer.write({
      call: 'addBulk',
      queue,
      send,
      manager,
      insert: (storage) =>
        dependents
          ? storage.enqueueDependents(queue, records, now, manager)
          : manager
            ? storage.enqueueIn(manager, queue, records, now)
            : storage.enqueue(queue, records, now),
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
    if (typeof options !== 'object' || options === null)
      throw new InvalidArgumentError('addFlow', 'options', 'must be { manager? }', 'QueueProducer');
    const unknownOption = unknownOptionProblem(options, ADD_FLOW_OPTION_KEYS);
    if (unknownOption) throw new InvalidArgumentError('addFlow', `option "${unknownOption.key}"`, unknownOption.reason, 'QueueProducer');
    // Each job of a queue with a schema is checked (all of them, before anything is prepared) and stores its output.
    const checked = this.runtime.payloadSchemas === undefined ? null : await checkFlowData(flow, (queue) => this.runtime.schemaFor(queue));
    const now = Date.now();
    const nodes = prepareFlow(flow, (queue) => this.defaultsFor(queue), now, checked);
    const manager = options.manager === undefined ? undefined : managerOf(nodes[0].queue, [options]);
    // One PRODUCER span, parent of every node's CONSUMER spans: a flow is one piece of work, children then parent.
    const send = this.tracing()?.send(nodes[0].queue, nodes.length, { link: false, jobName: nodes[0].job.name });
    if (send) for (const node of nodes) node.job.traceContext = send.traceContext;
    const root = nodes[0];
    return this.writer.write({
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
   * Enqueues a graph: jobs of any queues, each of which may wait for other jobs of the same call (`dependsOn: [{ ref }]`)
   * and for jobs that exist already (their ids), in one atomic write. A job runs once its dependencies have ended, as
   * with `dependsOn` on `add` (`onDependencyFailure` says what a failed one does). Jobs that depend on each other in a
   * circle are refused with `DependencyCycleError`. Resolves with one job per input, in input order. With
   * `options.manager`, the whole graph is written by that transaction.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError, DependencyCycleError, JobNotFoundError
   * (an id of a `dependsOn` names no job), UnsupportedTransactionError (nothing is written).
   */
  async addGraph<TData = unknown, TResult = unknown>(
    jobs: GraphJob<TData>[],
    options: AddGraphOptions = {},
  ): Promise<EnqueuedJob<TData, TResult>[]> {
    if (typeof options !== 'object' || options === null)
      throw new InvalidArgumentError('addGraph', 'options', 'must be { manager? }', 'QueueProducer');
    const unknownOption = unknownOptionProblem(options, ADD_GRAPH_OPTION_KEYS);
    if (unknownOption) throw new InvalidArgumentError('addGraph', `option "${unknownOption.key}"`, unknownOption.reason, 'QueueProducer');
    const checked = this.runtime.payloadSchemas === undefined ? null : await checkGraphData(jobs, (queue) => this.runtime.schemaFor(queue));
    const now = Date.now();
    const { nodes, inputIndex } = prepareGraph(jobs, (queue) => this.defaultsFor(queue), now, checked);
    const manager = options.manager === undefined ? undefined : managerOf(nodes[0].queue, [options]);
    // One PRODUCER span; each job's CONSUMER span links to it, as for a bulk: the jobs are separate pieces of work.
    const send = this.tracing()?.send(nodes[0].queue, nodes.length, { link: true });
    if (send) for (const node of nodes) node.job.traceContext = send.traceContext;
    return this.writer.write({
      call: 'addGraph',
      queue: nodes[0].queue,
      send,
      manager,
      insert: (storage) => storage.enqueueGraph(nodes, now, manager),
      idsOf: (ids) => ids,
      announce: (ids, added) => nodes.forEach((node, index) => added(node.queue, ids[index], intendedRunAt(node.job.runAt))),
      runAts: nodes.map((node) => node.job.runAt),
      now,
      handBack: (ids, where) => {
        const handles: EnqueuedJob<TData, TResult>[] = new Array(nodes.length);
        nodes.forEach((node, index) => {
          handles[inputIndex[index]] = this.enqueued<TData, TResult>(
            { ...newJobRecord(node.queue, node.job, ids[index], now), runAt: intendedRunAt(node.job.runAt) },
            where,
          );
        });
        return handles;
      },
    });
  }

  /** The telemetry when it records (an SDK is registered), else undefined: adds skip it. */
  private tracing(): QueueTelemetry | undefined {
    const telemetry = this.runtime.telemetry;
    return telemetry?.active ? telemetry : undefined;
  }

  /**
   * Creates or replaces a recurring job of `queue`: exactly one of `cron` or `every`. Re-upserting an
   * unchanged schedule keeps its next run time, so calling this at every boot is safe.
   * @throws InvalidQueueNameError, InvalidScheduleError (nothing is written).
   */
  async upsertSchedule<TData>(queue: string, name: string, options: ScheduleOptions<TData>): Promise<ScheduleInfo<TData>> {
    assertQueueName(queue);
    const now = Date.now();
    const record = toScheduleRecord(queue, name, await checkScheduleData(this.runtime.schemaFor(queue), queue, options), now);
    await Scheduler.upsert(guardStorage(await this.runtime.storage(), 'QueueProducer'), [record], now);
    const stored = (await this.listSchedules<TData>()).find((schedule) => schedule.queue === queue && schedule.name === name);
    return stored as ScheduleInfo<TData>;
  }

  /** Deletes a recurring job; resolves false when there was none. Jobs it already enqueued stay. */
  async removeSchedule(queue: string, name: string): Promise<boolean> {
    assertQueueName(queue);
    if (!isScheduleName(String(name))) return false;
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

  private defaultsFor(queue: string): JobDefaults {
    return { maxAttempts: this.runtime.getProcessor(queue)?.settings.maxAttempts ?? this.runtime.options.maxAttempts };
  }
}
