import { QueueAdmin } from '../admin/queue-admin.service';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { JobCounts, JobInfo } from '../interfaces/job-info.interface';
import { JobOptions } from '../interfaces/job-options.interface';
import { EnqueuedJob } from '../interfaces/job.interface';
import { CleanOptions, CountOptions, GetJobsOptions } from '../interfaces/queue-info.interface';
import { QueueDefaultJobOptions } from '../interfaces/register-queue-options.interface';
import { SchemaData, SchemaInput } from '../interfaces/payload-schema.interface';
import { ScheduleInfo, ScheduleOptions } from '../interfaces/schedule-options.interface';
import { QueueProducer } from '../producer/queue-producer.service';
import { keysOf, strayFieldProblem } from '../utils/option-keys.util';

/** Options of one job added through a `Queue` handle: the name is `add`'s first argument. */
export type QueueJobOptions = Omit<JobOptions, 'name'>;

/** One item of `Queue.addBulk()`, in BullMQ's shape (`options` where BullMQ says `opts`). */
export interface QueueBulkJob<TData = unknown> {
  /** The job's name. */
  name: string;
  /** The payload; must survive a JSON round-trip. */
  data: TData;
  /** Per-job options. */
  options?: QueueJobOptions;
}

/** The fields of a `QueueBulkJob`: any other is refused. */
const QUEUE_BULK_JOB_FIELDS = keysOf<QueueBulkJob>()('name', 'data', 'options');

/**
 * The handle of one queue, injected with `@InjectQueue(name)` after `SqliteQueueModule.registerQueue({ name })`:
 * BullMQ's `Queue`, typed by the queue's data and result. It adds with the queue's `defaultJobOptions` under each
 * job's own options, and inspects and controls this queue only. `QueueProducer` and `QueueAdmin` do the work, so
 * both stay usable beside it. `TInput` is what `add` takes where it differs from what a job holds (a queue `schema` with
 * defaults or transforms: see `SchemaQueue`).
 */
export class Queue<TData = unknown, TResult = unknown, TInput = TData> {
  constructor(
    /** The queue's name. */
    readonly name: string,
    private readonly producer: QueueProducer,
    private readonly admin: QueueAdmin,
    /** The defaults every job added through this handle starts from. */
    readonly defaultJobOptions: QueueDefaultJobOptions = {},
  ) {}

  /**
   * Adds a job named `name` (BullMQ's argument order: name, data, options). Resolves with the job, which can be
   * waited for (`waitUntilFinished()`, typed by the queue's result), as `QueueProducer.add` returns it.
   * @throws InvalidJobOptionsError, InvalidJobDataError (nothing is written).
   */
  add(name: string, data: TInput, options?: QueueJobOptions): Promise<EnqueuedJob<TData, TResult>> {
    // The queue's schema (if any) turns the input into the data a job holds.
    return this.producer.add<TData, TResult>(this.name, data as unknown as TData, this.optionsOf(name, options, 'options'));
  }

  /**
   * Adds many jobs in one atomic statement, all or none, in order.
   * @throws InvalidJobOptionsError, InvalidJobDataError (nothing is written).
   */
  addBulk(jobs: QueueBulkJob<TInput>[]): Promise<EnqueuedJob<TData, TResult>[]> {
    if (!Array.isArray(jobs)) throw new InvalidJobOptionsError(this.name, 'jobs', 'must be an array of { name, data, options? }');
    const items = jobs.map((job, index) => {
      if (typeof job !== 'object' || job === null || !('data' in job)) {
        throw new InvalidJobOptionsError(this.name, `jobs[${index}]`, 'must be an object { name, data, options? }');
      }
      // BullMQ's `opts` (or any other field) would otherwise be dropped silently.
      const stray = strayFieldProblem(job, QUEUE_BULK_JOB_FIELDS, 'a field of a job');
      if (stray) throw new InvalidJobOptionsError(this.name, `jobs[${index}].${stray.key}`, stray.reason);
      return { data: job.data as unknown as TData, options: this.optionsOf(job.name, job.options, `jobs[${index}].options`) };
    });
    return this.producer.addBulk<TData, TResult>(this.name, items);
  }

  /** A job of this queue with its whole state, or null (also for a job of another queue). */
  async getJob(id: string): Promise<JobInfo<TData, TResult> | null> {
    const job = await this.admin.getJob<TData, TResult>(id);
    return job && job.queue === this.name ? job : null;
  }

  /** The lines a job of this queue stored with `job.log()`, oldest first, or null (also for a job of another queue). */
  async getJobLogs(id: string): Promise<string[] | null> {
    return (await this.getJob(id)) ? this.admin.getJobLogs(id) : null;
  }

  /** Jobs of this queue, newest first, optionally of one status and/or name, a page at a time. */
  getJobs(options: GetJobsOptions = {}): Promise<JobInfo<TData, TResult>[]> {
    return this.admin.getJobs<TData, TResult>(this.name, options);
  }

  /** Number of this queue's jobs per status, optionally of one job name (`{ name }`). */
  getCounts(options: CountOptions = {}): Promise<JobCounts> {
    return this.admin.getCounts(this.name, options);
  }

  /** Stops claims of this queue in every process sharing the database; running jobs finish. */
  pause(): Promise<void> {
    return this.admin.pause(this.name);
  }

  /** Lets the queue be claimed again. */
  resume(): Promise<void> {
    return this.admin.resume(this.name);
  }

  /** Deletes this queue's jobs of some statuses finished (pending: created) at least `olderThan` ms ago; how many. */
  clean(options: CleanOptions): Promise<number> {
    return this.admin.clean(this.name, options);
  }

  /** Creates or replaces a recurring job of this queue (its jobs are named after it unless `jobOptions.name` says otherwise). */
  upsertSchedule(name: string, options: ScheduleOptions<TInput>): Promise<ScheduleInfo<TData>> {
    return this.producer.upsertSchedule<TData>(this.name, name, options as unknown as ScheduleOptions<TData>);
  }

  /** Deletes a recurring job of this queue; false when there was none. */
  removeSchedule(name: string): Promise<boolean> {
    return this.producer.removeSchedule(this.name, name);
  }

  /** The job options of one add: the queue's defaults, then the job's own, then its name. */
  private optionsOf(name: string, options: QueueJobOptions | undefined, label: string): JobOptions {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new InvalidJobOptionsError(this.name, label, 'must be an object');
    }
    if (options && 'name' in options) {
      throw new InvalidJobOptionsError(this.name, `${label}.name`, "is add()'s first argument here, not an option");
    }
    return { ...this.defaultJobOptions, ...options, name };
  }
}

/**
 * The handle of a queue declared with a `schema`: `add` takes the schema's input, jobs hold its output.
 * `@InjectQueue('email') private readonly email: SchemaQueue<typeof emailSchema>`.
 */
export type SchemaQueue<TSchema, TResult = unknown> = Queue<SchemaData<TSchema>, TResult, SchemaInput<TSchema>>;
