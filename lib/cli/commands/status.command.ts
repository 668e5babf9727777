import { JobCounts } from '../../interfaces/job-info.interface';
import { CliCommand } from '../cli-command';
import { isoTime, noPositional, table } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

/** Most running jobs read per queue to name the workers holding them. */
const RUNNING_READ = 1000;

/** What `status --json` prints for each queue. */
interface QueueStatus {
  name: string;
  counts: JobCounts;
  paused: boolean;
  /** Some process announced a processor for it recently (its announcement has not lapsed). */
  processed: boolean;
  /** Claims wait until then (a used-up rate window or a RateLimitError), epoch ms; null when not limited. */
  limitedUntil: number | null;
  /**
   * The first of its groups held back now (a group limiter's used-up window or a GroupRateLimitError) with a due job
   * opens then, epoch ms; null when no group is held back. Its other groups are claimed meanwhile.
   */
  groupLimitedUntil: number | null;
  /** Run time of its oldest due pending job, epoch ms; null when none is due. */
  oldestDue: number | null;
  /** Worker ids holding its running jobs (a handler has them, or claimed ahead), with how many each. */
  workers: { id: string; running: number }[];
}

export const STATUS_COMMAND: CliCommand = {
  name: 'status',
  summary: 'every queue: counts by status, paused, limits, oldest due job, processes running it',
  help: `Usage: nestjs-sqlite-queue status [--json] <database>
  Every queue with its counts by status (CLAIMED: running jobs a process claimed ahead of a free slot, not
  started yet), whether it is paused or rate-limited now (or some of its groups, until the
  first opens), its oldest due pending job,
  whether a process announced a processor for it recently, and the workers holding its running jobs.
  --json   one JSON object { queues: [...] } instead of the table`,
  options: { json: { type: 'boolean' } },
  usesDatabase: true,
  readOnly: true,
  async run(context) {
    noPositional('status', context.positionals);
    const { admin, storage, label } = await context.open();
    const now = Date.now();
    const queues = await admin.listQueues();
    const names = queues.map((queue) => queue.name);
    const [oldest, limited, groupsOpenAt] = await Promise.all([
      storage.oldestDuePending(now),
      storage.limitedUntil(names, now),
      Promise.all(names.map((name) => storage.groupOpensAt(name, now))),
    ]);
    const oldestOf = new Map(oldest.map((row) => [row.queue, row.runAt]));
    const statuses: QueueStatus[] = [];
    for (const queue of queues) {
      const running =
        queue.counts.running + queue.counts.claimed > 0
          ? await storage.listJobs(queue.name, { status: 'running', limit: RUNNING_READ, offset: 0 })
          : [];
      const workers = new Map<string, number>();
      for (const job of running) if (job.lockedBy) workers.set(job.lockedBy, (workers.get(job.lockedBy) ?? 0) + 1);
      statuses.push({
        name: queue.name,
        counts: queue.counts,
        paused: queue.paused,
        processed: queue.processed,
        limitedUntil: limited.get(queue.name) ?? null,
        groupLimitedUntil: groupsOpenAt[names.indexOf(queue.name)],
        oldestDue: oldestOf.get(queue.name) ?? null,
        workers: [...workers].map(([id, count]) => ({ id, running: count })),
      });
    }
    if (context.values.json === true) {
      context.print(JSON.stringify({ database: label, at: now, queues: statuses }, null, 2));
      return EXIT_CODES.ok;
    }
    if (statuses.length === 0) {
      context.print(`${label}: no queue yet`);
      return EXIT_CODES.ok;
    }
    const rows = statuses.map((queue) => [
      queue.name,
      String(queue.counts.pending),
      String(queue.counts.running),
      String(queue.counts.claimed),
      String(queue.counts.completed),
      String(queue.counts.failed),
      String(queue.counts.cancelled),
      [
        queue.paused ? 'paused' : 'active',
        queue.limitedUntil ? `limited until ${isoTime(queue.limitedUntil)}` : '',
        queue.groupLimitedUntil ? `a group limited until ${isoTime(queue.groupLimitedUntil)}` : '',
      ]
        .filter(Boolean)
        .join(', '),
      isoTime(queue.oldestDue),
      queue.processed ? 'yes' : 'no',
      queue.workers.map((worker) => `${worker.id} (${worker.running})`).join(', ') || '-',
    ]);
    context.print(
      table(
        ['QUEUE', 'PENDING', 'RUNNING', 'CLAIMED', 'COMPLETED', 'FAILED', 'CANCELLED', 'STATE', 'OLDEST DUE', 'PROCESSOR', 'WORKERS'],
        rows,
      ),
    );
    return EXIT_CODES.ok;
  },
};
