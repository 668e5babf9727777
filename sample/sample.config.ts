import { isIP } from 'node:net';
import { join } from 'node:path';

/**
 * Everything the sample can be tuned with, in one place. `npm start` runs from the repository root, so the
 * database lands in sample/.data/ there (gitignored through *.sqlite).
 */
export const SAMPLE_CONFIG = {
  /** The embedded SQLite file (SAMPLE_DATABASE, default sample/.data/sample.sqlite); deleted at every start so each run begins empty. */
  database: process.env.SAMPLE_DATABASE ?? join(process.cwd(), 'sample', '.data', 'sample.sqlite'),
  /** How many jobs of each kind the producer enqueues. */
  jobs: {
    newsletters: 1500,
    passwordResets: 40,
    welcomeFollowUps: 5,
    imageResizes: 900,
    invoices: 600,
    scheduledCharges: 3,
  },
  /**
   * Period of the recurring `reports` job, in ms (SAMPLE_REPORT_EVERY_MS, default 500): short, so a run of a few
   * seconds shows several occurrences.
   */
  reportEveryMs: Number(process.env.SAMPLE_REPORT_EVERY_MS ?? 500),
  /** One image in this many is a big panorama that reports its progress; the rest stay cheap and silent. */
  panoramaEvery: 150,
  /** How many `retrying` events are printed as they happen; the rest are only counted. */
  retriesShown: 3,
  /** How long the delayed jobs wait, in ms: long enough to be visibly "pending", short enough to keep the run quick. */
  delayMs: 1000,
  /** Where the HTTP server (and the dashboard at /queues) listens: SAMPLE_PORT, default 3000 (0: any free port). */
  port: Number(process.env.SAMPLE_PORT ?? 3000),
  host: process.env.SAMPLE_HOST ?? '127.0.0.1',
  /**
   * Names the dashboard answers to besides localhost and IP addresses (its `allowedHosts`): SAMPLE_HOST when it is
   * a name, since the run prints the dashboard's address under it. Any other name is refused, which is what keeps
   * a page of another site from reaching this unguarded dashboard by DNS rebinding.
   */
  dashboardHosts: isIP(process.env.SAMPLE_HOST ?? '127.0.0.1') === 0 ? [process.env.SAMPLE_HOST as string] : [],
  /** Keep serving the dashboard after the run until Ctrl+C: `--keep-open` or SAMPLE_KEEP_OPEN=1. */
  keepOpen: process.argv.includes('--keep-open') || process.env.SAMPLE_KEEP_OPEN === '1',
  /** Give up (and exit 1) if the queues have not drained by then. */
  drainTimeoutMs: 50_000,
} as const;
