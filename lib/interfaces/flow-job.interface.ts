import type { EntityManager } from 'typeorm';
import { JobOptions } from './job-options.interface';

/** What a parent does when one of its children ends failed (after its last attempt) or cancelled. */
export type OnChildFailure = 'fail' | 'continue';

/**
 * One job of a flow given to `QueueProducer.addFlow()`: a job that runs only after all of its `children` have
 * completed (and they after theirs). Children may be in any queue.
 */
export interface FlowJob<TData = unknown> {
  /** The job's queue. */
  queue: string;
  /** The payload; must survive a JSON round-trip. */
  data: TData;
  /** Per-job options, as for `add()`, except `key` and `manager` (the flow is atomic as a whole: see `addFlow`). */
  options?: Omit<JobOptions, 'key' | 'manager'>;
  /** Jobs that must complete before this one runs. */
  children?: FlowJob[];
  /**
   * With children: `'fail'` (default) fails this job, without running it, as soon as a child ends failed or
   * cancelled (its error is a `ChildFailedError`); `'continue'` runs it once every child has ended, whatever the
   * outcome (`getChildrenResults()` then holds the completed ones only).
   */
  onChildFailure?: OnChildFailure;
}

/** Options of `QueueProducer.addFlow()`. */
export interface AddFlowOptions {
  /** Enqueue the whole flow in your open TypeORM transaction (see `JobOptions.manager`). */
  manager?: EntityManager;
}

/** A job's place in a flow, as `QueueAdmin.getJob()` shows it. */
export interface JobFlowInfo {
  /** The parent waiting for this job, if it is a child. */
  parentId: string | null;
  /** Ids of its children, oldest first (empty for a job added without children). */
  childrenIds: string[];
  /** Children still pending or running: the parent runs when this reaches 0. */
  pendingChildren: number;
  /** The parent's policy for failed children (null for a job added without children). */
  onChildFailure: OnChildFailure | null;
  /** True while the job waits for its children (it is `pending` but not due). */
  waitingForChildren: boolean;
}

/** Options of `QueueAdmin.cancel()` and `QueueAdmin.remove()`. */
export interface CascadeOptions {
  /** Also cancel (remove) every descendant of the job: its children, their children... Default false. */
  cascade?: boolean;
}
