import { JobCounts } from '../interfaces/job-info.interface';
import { FinishedJobTiming } from '../storage/queue-storage.interface';

/** What the exposition is built from: counts per queue, paused queues, and the finished jobs of the window. */
export interface PrometheusInput {
  readonly counts: ReadonlyMap<string, JobCounts>;
  readonly paused: ReadonlySet<string>;
  readonly timings: readonly FinishedJobTiming[];
  readonly windowMinutes: number;
  /** The window held more finished jobs than were read (the newest were used). */
  readonly sampled: boolean;
}

const QUANTILES = [0.5, 0.9, 0.99] as const;

/** A label value as the text format wants it: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text as the text format wants it: backslash and line feed escaped. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function labels(pairs: Record<string, string>): string {
  return `{${Object.entries(pairs)
    .map(([name, value]) => `${name}="${escapeLabelValue(value)}"`)
    .join(',')}}`;
}

/** A number as the text format writes it (integers plain, others to the millisecond's precision). */
function num(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 1e6) / 1e6);
}

/** Nearest-rank quantile of a sorted sample. */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * The Prometheus text exposition (format 0.0.4) of the queues: job counts by status and paused state (gauges, of
 * the whole database now), and of the jobs finished in the last `windowMinutes` (database-wide): completions and
 * failures (gauges: a count over a sliding window goes down as well as up, which a Prometheus counter may not) and
 * wait and run time summaries in seconds, whose quantiles, `_sum` and `_count` all cover the window.
 */
export function formatPrometheus(input: PrometheusInput): string {
  const lines: string[] = [];
  const family = (name: string, type: 'gauge' | 'summary', help: string) =>
    lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
  const queues = [...new Set([...input.counts.keys(), ...input.paused, ...input.timings.map((t) => t.queue)])].sort();
  const window = `the last ${input.windowMinutes} minute(s)${input.sampled ? ' (the newest 100,000 finished jobs of it)' : ''}`;

  family('nest_queue_jobs', 'gauge', 'Jobs in the database by queue and status, now.');
  for (const queue of queues) {
    const counts = input.counts.get(queue);
    for (const [status, count] of Object.entries(counts ?? {})) lines.push(`nest_queue_jobs${labels({ queue, status })} ${count}`);
  }
  family('nest_queue_paused', 'gauge', '1 when an operator paused the queue (QueueAdmin.pause), else 0.');
  for (const queue of queues) lines.push(`nest_queue_paused${labels({ queue })} ${input.paused.has(queue) ? 1 : 0}`);

  const byQueue = new Map<string, { completed: number; failed: number; waits: number[]; runs: number[] }>();
  for (const timing of input.timings) {
    let entry = byQueue.get(timing.queue);
    if (!entry) byQueue.set(timing.queue, (entry = { completed: 0, failed: 0, waits: [], runs: [] }));
    if (timing.status === 'completed') entry.completed++;
    else if (timing.status === 'failed') entry.failed++;
    else continue;
    if (timing.waitMs !== null && timing.waitMs >= 0) entry.waits.push(timing.waitMs / 1000);
    if (timing.runMs !== null && timing.runMs >= 0) entry.runs.push(timing.runMs / 1000);
  }
  family('nest_queue_completed_window', 'gauge', `Jobs completed in ${window}, database-wide (a sliding window, not a counter).`);
  for (const queue of queues) lines.push(`nest_queue_completed_window${labels({ queue })} ${byQueue.get(queue)?.completed ?? 0}`);
  family('nest_queue_failed_window', 'gauge', `Jobs failed for good in ${window}, database-wide (a sliding window, not a counter).`);
  for (const queue of queues) lines.push(`nest_queue_failed_window${labels({ queue })} ${byQueue.get(queue)?.failed ?? 0}`);

  const summary = (name: string, help: string, pick: (entry: { waits: number[]; runs: number[] }) => number[]) => {
    family(name, 'summary', help);
    for (const queue of queues) {
      const sample = [...pick(byQueue.get(queue) ?? { waits: [], runs: [] })].sort((a, b) => a - b);
      for (const q of QUANTILES)
        lines.push(`${name}${labels({ queue, quantile: String(q) })} ${sample.length ? num(quantile(sample, q)) : 'NaN'}`);
      lines.push(`${name}_sum${labels({ queue })} ${num(sample.reduce((sum, value) => sum + value, 0))}`);
      lines.push(`${name}_count${labels({ queue })} ${sample.length}`);
    }
  };
  summary('nest_queue_wait_seconds', `From due to start of the last attempt, of the jobs finished in ${window}.`, (e) => e.waits);
  summary('nest_queue_run_seconds', `From start to finish of the last attempt, of the jobs finished in ${window}.`, (e) => e.runs);
  return `${lines.join('\n')}\n`;
}
