import type { StorageLifecycle } from './roles/storage-lifecycle.interface';
import type { EnqueueStorage } from './roles/enqueue-storage.interface';
import type { ClaimStorage } from './roles/claim-storage.interface';
import type { LeaseStorage } from './roles/lease-storage.interface';
import type { LimitStorage } from './roles/limit-storage.interface';
import type { InspectionStorage } from './roles/inspection-storage.interface';
import type { WaitStorage } from './roles/wait-storage.interface';
import type { EventStorage } from './roles/event-storage.interface';
import type { ControlStorage } from './roles/control-storage.interface';
import type { FlowStorage } from './roles/flow-storage.interface';
import type { ScheduleStorage } from './roles/schedule-storage.interface';
import type { HousekeepingStorage } from './roles/housekeeping-storage.interface';
import type { OperatorStorage } from './roles/operator-storage.interface';
import type { GroupStorage } from './roles/group-storage.interface';
import type { ExplainStorage } from './roles/explain-storage.interface';
import type { KeyedEnqueueStorage } from './roles/keyed-enqueue-storage.interface';
import type { DeadLetterStorage } from './roles/dead-letter-storage.interface';
import type { SnoozeStorage } from './roles/snooze-storage.interface';
import type { CallerTransactionStorage } from './roles/caller-transaction-storage.interface';

export * from './storage-records';
export type { StorageLifecycle } from './roles/storage-lifecycle.interface';
export type { EnqueueStorage } from './roles/enqueue-storage.interface';
export type { ClaimStorage } from './roles/claim-storage.interface';
export type { LeaseStorage } from './roles/lease-storage.interface';
export type { LimitStorage } from './roles/limit-storage.interface';
export type { InspectionStorage } from './roles/inspection-storage.interface';
export type { WaitStorage } from './roles/wait-storage.interface';
export type { EventStorage } from './roles/event-storage.interface';
export type { ControlStorage } from './roles/control-storage.interface';
export type { FlowStorage } from './roles/flow-storage.interface';
export type { ScheduleStorage } from './roles/schedule-storage.interface';
export type { HousekeepingStorage } from './roles/housekeeping-storage.interface';
export type { OperatorStorage } from './roles/operator-storage.interface';
export type { GroupStorage } from './roles/group-storage.interface';
export type { ExplainStorage, ExplainFacts } from './roles/explain-storage.interface';
export type { KeyedEnqueueStorage } from './roles/keyed-enqueue-storage.interface';
export type { DeadLetterStorage } from './roles/dead-letter-storage.interface';
export type { SnoozeStorage } from './roles/snooze-storage.interface';
export type { CallerTransactionStorage } from './roles/caller-transaction-storage.interface';
export type { CallerTransaction } from './transactions/caller-transaction';

/**
 * Everything the queue needs from a database: the intersection of the storage's roles, which each backend implements
 * as one class. The parts of the queue depend on the roles they use (the poller on `ClaimStorage` and
 * `LimitStorage`, `QueueAdmin` on `InspectionStorage`, `ControlStorage` and `FlowStorage`, ...), never on this
 * whole; a backend keeps all of its SQL behind it. Every method is one atomic statement unless it says otherwise,
 * and none leaves a transaction open. Every role member is called by a case of the storage contract
 * (`test/storage-contract.e2e-spec.ts`), run on every backend.
 */
export interface QueueStorage
  extends
    StorageLifecycle,
    EnqueueStorage,
    ClaimStorage,
    LeaseStorage,
    LimitStorage,
    InspectionStorage,
    WaitStorage,
    EventStorage,
    ControlStorage,
    FlowStorage,
    ScheduleStorage,
    HousekeepingStorage,
    OperatorStorage,
    GroupStorage,
    ExplainStorage,
    KeyedEnqueueStorage,
    DeadLetterStorage,
    SnoozeStorage,
    CallerTransactionStorage {}
