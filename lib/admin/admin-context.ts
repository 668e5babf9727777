import { QueueNotFoundError } from '../errors/queue-not-found.error';
import { ScheduleNotFoundError } from '../errors/schedule-not-found.error';
import { QueueRuntime } from '../runtime/queue-runtime';
import { guardStorage } from '../storage/guard-storage';
import {
  ControlStorage,
  DeadLetterStorage,
  ExplainStorage,
  FlowStorage,
  GroupStorage,
  HousekeepingStorage,
  InspectionStorage,
  LimitStorage,
  OperatorStorage,
  ScheduleRecord,
  ScheduleStorage,
  StorageLifecycle,
} from '../storage/queue-storage.interface';
import { closestName } from '../utils/closest-name.util';
import { assertQueueName } from '../utils/queue-name.util';

/** What `QueueAdmin`'s parts use: inspection, control and flows, which queues are processed, and backups. */
export type AdminStorage = InspectionStorage &
  GroupStorage &
  ExplainStorage &
  ControlStorage &
  FlowStorage &
  Pick<HousekeepingStorage, 'processedQueues'> &
  Pick<LimitStorage, 'storedLimits'> &
  Pick<StorageLifecycle, 'backup'> &
  OperatorStorage &
  DeadLetterStorage &
  Pick<ScheduleStorage, 'listSchedules' | 'enqueueScheduleRun'>;

/**
 * What every part of `QueueAdmin` shares: the runtime, the storage with its driver errors turned into `StorageError`,
 * and the checks that a queue or a schedule exists before a control call writes.
 */
export class AdminContext {
  constructor(
    readonly runtime: QueueRuntime,
    /** The names of the queues known now, for the closest-name suggestion of `QueueNotFoundError`. */
    private readonly queueNames: () => Promise<string[]>,
  ) {}

  /** The storage, its driver errors turned into StorageError (the library's own errors pass unchanged). */
  async storage(): Promise<AdminStorage> {
    return guardStorage(await this.runtime.storage(), 'QueueAdmin');
  }

  /**
   * Whether the queue is known: declared by this application, or named by the database (see `QueueAdmin.hasQueue`).
   */
  async hasQueue(queue: string): Promise<boolean> {
    return this.runtime.declaresQueue(queue) || this.storedQueue(await this.storage(), queue);
  }

  /**
   * The storage, once `queue` is known (see `hasQueue`): a control call on a queue nothing names is refused with
   * `QueueNotFoundError`, naming the closest known queue, and writes nothing (pausing a mistyped name would create it).
   */
  async knownQueue(operation: string, queue: string): Promise<AdminStorage> {
    assertQueueName(queue);
    const storage = await this.storage();
    if (this.runtime.declaresQueue(queue) || (await this.storedQueue(storage, queue))) return storage;
    const known = [...this.runtime.declaredQueues(), ...(await this.queueNames())];
    throw new QueueNotFoundError(queue, operation, closestName(queue, known));
  }

  /** The storage and the schedule `name` of `queue`. @throws InvalidQueueNameError, ScheduleNotFoundError. */
  async schedule(queue: string, name: string): Promise<{ storage: AdminStorage; schedule: ScheduleRecord }> {
    assertQueueName(queue);
    const storage = await this.storage();
    const schedule = (await storage.listSchedules()).find((record) => record.queue === queue && record.name === name);
    if (!schedule) throw new ScheduleNotFoundError(queue, String(name));
    return { storage, schedule };
  }

  /** Wakes this process's poller, when it has one: jobs became claimable. */
  wake(): void {
    this.runtime.processing?.wake();
  }

  /**
   * Whether the database names `queue`: one statement (a job, a state row, a schedule), then, for a queue it does not
   * name, the processors' dead-letter declarations (an emptied dead-letter queue is still one: the next dead letter
   * goes there).
   */
  private async storedQueue(storage: AdminStorage, queue: string): Promise<boolean> {
    if (await storage.queueKnown(queue)) return true;
    return (await storage.deadLetterQueues()).some((info) => info.queue === queue);
  }
}
