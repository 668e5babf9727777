import type { EntityManager } from 'typeorm';
import {
  CallerTransaction,
  CallerTransactionStorage,
  EnqueueStorage,
  FlowStorage,
  JobRecord,
  KeyedEnqueueStorage,
  ScheduleStorage,
} from '../storage/queue-storage.interface';
import { SendSpan } from '../telemetry/queue-telemetry';

/** What the producer uses: the inserts, a flow's children (for a handle's `getChildrenValues`) and schedules. */
export type ProducerStorage = EnqueueStorage &
  CallerTransactionStorage &
  KeyedEnqueueStorage &
  Pick<FlowStorage, 'childrenOf' | 'dependenciesOf'> &
  ScheduleStorage;

/** Where an add wrote its jobs: what the handles it returns read from, and whether the caller's transaction holds them. */
export interface AddWrite {
  storage: ProducerStorage;
  /** The caller's open transaction on a shared connection, if the rows went into one (its rollback unmakes them). */
  transaction?: CallerTransaction;
  /** Written by a transaction that has not committed yet (`manager`, or one open on a shared connection). */
  inTransaction: boolean;
}

/** Announces one job an add inserted now (its `added` event). */
export type AnnounceAdded = (queue: string, id: string, runAt: number) => void;

/** One add's write, as `AddWriter.write` runs it (see there): `add`, `addBulk` and `addFlow` each give one. */
export interface AddStep<T, R> {
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

/**
 * Announces `record` if it was inserted now, not a live job found by its key (created before). `>=`: a batch commit
 * stamps its rows with the latest caller's time.
 */
export function announceIfNew(record: JobRecord, now: number, added: AnnounceAdded): void {
  if (record.createdAt >= now) added(record.queue, record.id, record.runAt);
}
