/**
 * A process's state in `ProcessInfo`: `live` while its announcement holds, `stopped` once it shut down, `lost` when
 * its announcement lapsed without a shutdown (crashed, killed -9, hung, or cut off from the database).
 */
export type ProcessState = 'live' | 'stopped' | 'lost';

/** One processing process sharing the database, as its announcements describe it (`ProcessesInfo.processes`). */
export interface ProcessInfo {
  /** Its `workerId` (the module option; unique per process unless set by hand). */
  workerId: string;
  state: ProcessState;
  /** When it started processing (this life of its worker id). */
  startedAt: Date;
  /** Its latest announcement: every announcement period (30 poll intervals, 1 to 30 s) while it runs. */
  lastSeen: Date;
  /** When it shut down, for `stopped`; null otherwise. */
  stoppedAt: Date | null;
  /** Its processors: queue, concurrency, and how many of the queue's jobs it runs now. */
  processors: { queue: string; concurrency: number; running: number }[];
}

/** What `QueueAdmin.listProcesses()` knows of the processes sharing the database. */
export interface ProcessesInfo {
  /** This application: its worker id and the processors it runs here. */
  self: {
    workerId: string;
    processors: { queue: string; concurrency: number }[];
  };
  /**
   * Every processing process that announced itself, idle or busy: the live ones, and for an hour the ones that
   * stopped or went quiet (then forgotten). Live first, then by worker id. Its first announcement is made as it
   * starts, so a process shows from its boot.
   */
  processes: ProcessInfo[];
  /**
   * Each worker id seen running jobs (by the id they are locked with), its queues, how many jobs it runs in each, and
   * when it last wrote one of them (a claim or a lease renewal): also a process of a build before schema step 13,
   * which announces no processes.
   */
  workers: { workerId: string; queues: { queue: string; running: number }[]; lastSeen: Date }[];
  /** Each queue some process announced a processor for, and until when that announcement holds. */
  announcements: { queue: string; until: Date }[];
}
