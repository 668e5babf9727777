/** What `QueueAdmin.listProcesses()` knows of the processes sharing the database. */
export interface ProcessesInfo {
  /** This application: its worker id and the processors it runs here. */
  self: {
    workerId: string;
    processors: { queue: string; concurrency: number }[];
  };
  /**
   * Each process seen running jobs (by the worker id they are locked with: the `workerId` module option, unique per
   * process unless set by hand), its queues, how many jobs it runs in each, and when it last wrote one of them (a
   * claim or a lease renewal). An idle process does not show here: the announcements are per queue, not per process.
   */
  workers: { workerId: string; queues: { queue: string; running: number }[]; lastSeen: Date }[];
  /** Each queue some process announced a processor for, and until when that announcement holds. */
  announcements: { queue: string; until: Date }[];
}
