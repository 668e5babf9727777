import { ProcessInfo, ProcessesInfo } from '../interfaces/process-info.interface';
import { ProcessRow, WorkerActivityRow } from '../storage/queue-storage.interface';

/**
 * The processes of `ProcessesInfo.processes`, from the processes table's rows (one per process and queue) and the
 * running jobs per worker id: one entry per life of a worker id, its state read at `now`, live ones first.
 */
export function toProcesses(rows: ProcessRow[], activity: WorkerActivityRow[], now: number): ProcessInfo[] {
  const running = new Map(activity.map((row) => [`${row.workerId}\n${row.queue}`, row.running]));
  const byLife = new Map<string, { info: ProcessInfo; until: number }>();
  for (const row of rows) {
    const life = `${row.workerId}\n${row.startedAt}`;
    let entry = byLife.get(life);
    if (!entry) {
      entry = {
        info: {
          workerId: row.workerId,
          state: 'live',
          startedAt: new Date(row.startedAt),
          lastSeen: new Date(row.seenAt),
          stoppedAt: row.stoppedAt === null ? null : new Date(row.stoppedAt),
          processors: [],
        },
        until: row.until,
      };
      byLife.set(life, entry);
    }
    const { info } = entry;
    if (row.seenAt > info.lastSeen.getTime()) info.lastSeen = new Date(row.seenAt);
    entry.until = Math.max(entry.until, row.until);
    if (row.stoppedAt !== null && info.stoppedAt === null) info.stoppedAt = new Date(row.stoppedAt);
    info.processors.push({
      queue: row.queue,
      concurrency: row.concurrency,
      running: running.get(`${row.workerId}\n${row.queue}`) ?? 0,
    });
  }
  const processes = [...byLife.values()].map(({ info, until }) => {
    // A shutdown ends the rows at its own time; a row that lapsed without one is a process that vanished.
    info.state = info.stoppedAt !== null ? 'stopped' : until > now ? 'live' : 'lost';
    return info;
  });
  const rank = (state: ProcessInfo['state']) => (state === 'live' ? 0 : 1);
  return processes.sort(
    (a, b) => rank(a.state) - rank(b.state) || compare(a.workerId, b.workerId) || b.startedAt.getTime() - a.startedAt.getTime(),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The `workers` of `ProcessesInfo`: the running jobs per worker id, with each one's latest write. */
export function toWorkers(activity: WorkerActivityRow[]): ProcessesInfo['workers'] {
  const workers = new Map<string, ProcessesInfo['workers'][number]>();
  for (const row of activity) {
    const worker = workers.get(row.workerId) ?? { workerId: row.workerId, queues: [], lastSeen: new Date(0) };
    worker.queues.push({ queue: row.queue, running: row.running });
    if (row.lastSeen > worker.lastSeen.getTime()) worker.lastSeen = new Date(row.lastSeen);
    workers.set(row.workerId, worker);
  }
  return [...workers.values()];
}
