/**
 * `QueueAdmin.exportPrometheusMetrics()`: the text exposition format, checked line by line by the
 * small parser below (the format's rules, no prom-client), on every backend: counts by queue and status, paused
 * state, the window's completions and failures, and wait and run time summaries.
 */
import { InvalidArgumentError, QueueAdmin, QueueProducer } from '../lib';
import { escapeLabelValue, formatPrometheus } from '../lib/metrics/prometheus-exposition';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { errorOf } from './support/ops';
import { rawSql } from './fixtures/legacy-schema';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the text format strictly: `# HELP name text`, `# TYPE name gauge|counter|summary|histogram|untyped` once per
 * family and before its samples, then `name{label="value",...} number` lines whose names belong to a declared family
 * (`_sum`/`_count` for summaries), label values with only `\\`, `\"` and `\n` escapes. Throws on anything else.
 */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string>; help: Map<string, string> } {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  for (const line of text.slice(0, -1).split('\n')) {
    let match = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    if (match) {
      if (help.has(match[1])) throw new Error(`second HELP for ${match[1]}`);
      help.set(match[1], match[2]);
      continue;
    }
    match = new RegExp(`^# TYPE (${NAME}) (gauge|counter|summary|histogram|untyped)$`).exec(line);
    if (match) {
      if (types.has(match[1])) throw new Error(`second TYPE for ${match[1]}`);
      types.set(match[1], match[2]);
      continue;
    }
    match = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    if (!match) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const [, name, labelText = '', valueText] = match;
    const family = types.has(name) ? name : name.replace(/_(sum|count)$/, '');
    if (!types.has(family) || (family !== name && types.get(family) !== 'summary')) throw new Error(`${name} has no TYPE line before it`);
    const labels: Record<string, string> = {};
    const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
    let at = 0;
    while (at < labelText.length) {
      labelPattern.lastIndex = at;
      const label = labelPattern.exec(labelText);
      if (!label) throw new Error(`bad labels: ${labelText}`);
      labels[label[1]] = label[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      at = labelPattern.lastIndex;
    }
    const value = valueText === 'NaN' ? NaN : Number(valueText);
    if (valueText !== 'NaN' && !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]Inf$/.test(valueText))
      throw new Error(`bad value ${valueText}`);
    samples.push({ name, labels, value });
  }
  return { samples, types, help };
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('Prometheus text format (no database)', () => {
  it('escapes label values and HELP text as the format says, and parses back to the same values', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const text = formatPrometheus({
      counts: new Map([['we"ird\\q\nx', { pending: 1, running: 0, completed: 2, failed: 0, cancelled: 0, claimed: 0 }]]),
      paused: new Set(),
      timings: [],
      windowMinutes: 5,
      sampled: false,
    });
    const { samples } = parseExposition(text);
    expect(valueOf(samples, 'nest_queue_jobs', { queue: 'we"ird\\q\nx', status: 'completed' })).toBe(2);
    expect(() => parseExposition('nest_queue_jobs{queue="a"} 1\n')).toThrow('no TYPE');
    expect(() => parseExposition('# TYPE x gauge\nx{queue="a\nb"} 1\n')).toThrow();
  });

  it('gives the nearest-rank quantiles, the sum and the count of a known sample, whatever order it comes in', () => {
    // Run times whose text order differs from their numeric order (12 s sorts before 2 s as text), given shuffled.
    const runs = [3000, 250, 12000, 1000, 8000, 500, 2000, 750, 4000, 1500];
    const waits = [900, 0, 500, 100, 800, 300, 700, 200, 600, 400];
    const now = Date.now();
    const text = formatPrometheus({
      counts: new Map(),
      paused: new Set(),
      timings: runs.map((runMs, i) => ({ queue: 'known', status: 'completed', waitMs: waits[i], runMs, finishedAt: now - i })),
      windowMinutes: 15,
      sampled: false,
    });
    const { samples } = parseExposition(text);
    const of = (name: string, quantile: string) => valueOf(samples, name, { queue: 'known', quantile });
    expect([of('nest_queue_run_seconds', '0.5'), of('nest_queue_run_seconds', '0.9'), of('nest_queue_run_seconds', '0.99')]).toEqual([
      1.5, 8, 12,
    ]);
    expect(valueOf(samples, 'nest_queue_run_seconds_sum', { queue: 'known' })).toBe(33);
    expect(valueOf(samples, 'nest_queue_run_seconds_count', { queue: 'known' })).toBe(10);
    expect([of('nest_queue_wait_seconds', '0.5'), of('nest_queue_wait_seconds', '0.9'), of('nest_queue_wait_seconds', '0.99')]).toEqual([
      0.4, 0.8, 0.9,
    ]);
    expect(valueOf(samples, 'nest_queue_wait_seconds_sum', { queue: 'known' })).toBe(4.5);
  });
});

describeEachBackend('QueueAdmin.exportPrometheusMetrics', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it("exposes counts, paused state, the window's completions and failures and time summaries, valid line by line", async () => {
    const Done = defineProcessor('prom-done', async () => 'ok');
    const Fails = defineProcessor(
      'prom-fail',
      async () => {
        throw new Error('no');
      },
      { maxAttempts: 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Done, Fails] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    for (let i = 0; i < 3; i++) await producer.add('prom-done', { i });
    const failing = await producer.add('prom-fail', {});
    await admin.waitUntilFinished(failing.id, { timeout: 10_000 });
    await admin.waitUntilIdle();
    await admin.pause('prom-fail');
    await producer.add('prom-fail', {});

    const text = await admin.exportPrometheusMetrics();
    const { samples, types, help } = parseExposition(text);
    expect(Object.fromEntries(types)).toEqual({
      nest_queue_jobs: 'gauge',
      nest_queue_paused: 'gauge',
      nest_queue_completed_window: 'gauge',
      nest_queue_failed_window: 'gauge',
      nest_queue_wait_seconds: 'summary',
      nest_queue_run_seconds: 'summary',
    });
    for (const name of types.keys()) expect(help.get(name)?.length).toBeGreaterThan(10);
    expect(valueOf(samples, 'nest_queue_jobs', { queue: 'prom-done', status: 'completed' })).toBe(3);
    expect(valueOf(samples, 'nest_queue_jobs', { queue: 'prom-fail', status: 'failed' })).toBe(1);
    expect(valueOf(samples, 'nest_queue_jobs', { queue: 'prom-fail', status: 'pending' })).toBe(1);
    expect(valueOf(samples, 'nest_queue_paused', { queue: 'prom-fail' })).toBe(1);
    expect(valueOf(samples, 'nest_queue_paused', { queue: 'prom-done' })).toBe(0);
    expect(valueOf(samples, 'nest_queue_completed_window', { queue: 'prom-done' })).toBe(3);
    expect(valueOf(samples, 'nest_queue_failed_window', { queue: 'prom-fail' })).toBe(1);
    expect(valueOf(samples, 'nest_queue_run_seconds_count', { queue: 'prom-done' })).toBe(3);
    expect(valueOf(samples, 'nest_queue_wait_seconds_count', { queue: 'prom-done' })).toBe(3);
    const p99 = valueOf(samples, 'nest_queue_run_seconds', { queue: 'prom-done', quantile: '0.99' })!;
    expect(p99).toBeGreaterThanOrEqual(0);
    expect(p99).toBeLessThan(10);
    expect(valueOf(samples, 'nest_queue_run_seconds_sum', { queue: 'prom-done' })).toBeGreaterThanOrEqual(0);
    expect(await errorOf(() => admin.exportPrometheusMetrics({ windowMinutes: 0 }))).toBeInstanceOf(InvalidArgumentError);
    expect(await errorOf(() => admin.exportPrometheusMetrics({ windowMinute: 5 } as never))).toBeInstanceOf(InvalidArgumentError);
  });

  it('computes the quantiles from the stored start, finish and due times: known durations give known values', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const runs = [3000, 250, 12000, 1000, 8000, 500, 2000, 750, 4000, 1500];
    const waits = [900, 0, 500, 100, 800, 300, 700, 200, 600, 400];
    const jobs = await producer.addBulk(
      'prom-known',
      runs.map(() => ({ data: {} })),
    );
    // Each job finished in the window, having waited and run for exactly the durations above.
    const now = Date.now();
    for (const [i, job] of jobs.entries()) {
      const finishedAt = now - 60_000 + i * 1000;
      const startedAt = finishedAt - runs[i];
      await rawSql(
        current.db,
        [
          `UPDATE {schema}.nest_queue_jobs SET status = 'completed', attempts = 1, run_at = ?, started_at = ?, finished_at = ? WHERE id = ?`,
        ],
        [startedAt - waits[i], startedAt, finishedAt, Number(job.id)],
      );
    }
    const { samples } = parseExposition(await app.get(QueueAdmin).exportPrometheusMetrics());
    const of = (name: string, quantile: string) => valueOf(samples, name, { queue: 'prom-known', quantile });
    expect(valueOf(samples, 'nest_queue_completed_window', { queue: 'prom-known' })).toBe(10);
    expect([of('nest_queue_run_seconds', '0.5'), of('nest_queue_run_seconds', '0.9'), of('nest_queue_run_seconds', '0.99')]).toEqual([
      1.5, 8, 12,
    ]);
    expect(valueOf(samples, 'nest_queue_run_seconds_sum', { queue: 'prom-known' })).toBe(33);
    expect([of('nest_queue_wait_seconds', '0.5'), of('nest_queue_wait_seconds', '0.9'), of('nest_queue_wait_seconds', '0.99')]).toEqual([
      0.4, 0.8, 0.9,
    ]);
    expect(valueOf(samples, 'nest_queue_wait_seconds_sum', { queue: 'prom-known' })).toBe(4.5);
    expect(valueOf(samples, 'nest_queue_wait_seconds_count', { queue: 'prom-known' })).toBe(10);
  });
});
