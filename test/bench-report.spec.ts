/**
 * The Targets table of bench/RESULTS.md (bench/report.js and bench/lib/report-*.js): every row judged on the median of
 * several runs states the range of the runs it took the median of ("per run lo–hi"), computed from those runs, and its
 * verdict stays on the median. Built here from made-up results of three runs, so a row that loses its range, or shows
 * one from other runs, fails.
 */

type Row = [string, string, boolean | null, string?];
// The report is plain CommonJS without types: the slice this test uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { targetRows, buildReport } = require('../bench/report') as {
  targetRows: (data: unknown) => Row[];
  buildReport: (data: unknown) => string;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pairedSpread, perRun } = require('../bench/lib/report-helpers') as {
  pairedSpread: (a: number[], b: number[], percent?: boolean) => string;
  perRun: (values: number[], digits: number, unit: string) => string;
};

/** Three runs of a value: the median run first, then one below and one above. */
const three = (value: number, low: number, high: number) => [value, low, high];

function throughputRun(rate: number, cpuUs: number) {
  return {
    process: { rate, rssMiB: 120, completed: 100, jobs: 100, handled: 100, cpuPerJob: { totalUs: cpuUs } },
    bulkEnqueue: { rate: rate * 2 },
    addOne: { rate: rate / 10 },
    errors: 0,
  };
}

function madeUpResults() {
  const throughputIds = ['library', 'library-bs3', 'bullmq', 'plainjob', 'raw-sqlite3', 'raw-bs3'];
  const rates: Record<string, number[]> = {
    // Against BullMQ (25,000 in every run): 2.80×, 2.52×, 3.08×.
    library: three(70_000, 63_000, 77_000),
    'library-bs3': three(60_000, 58_000, 66_000),
    bullmq: three(25_000, 25_000, 25_000),
    plainjob: three(16_000, 15_000, 17_000),
    'raw-sqlite3': three(100_000, 100_000, 100_000),
    'raw-bs3': three(110_000, 110_000, 110_000),
  };
  const latencyRun = (p50: number, p99: number) => ({
    fromResolved: { p50, p95: p99 / 2, p99 },
    fromCalled: { p50: p50 * 2, p99: p99 * 2 },
    samples: 100,
  });
  const pgRun = (rate: number, cpuUs: number) => ({
    process: { rate, completed: 1, jobs: 1, handled: 1 },
    bulkEnqueue: { rate: rate * 3 },
    cpu: { clientUs: cpuUs / 2, serverUs: cpuUs / 2, jobsPerCpuSecond: 1e6 / cpuUs, sharedUs: 1 },
    perProcess: [1, 1],
    errors: 0,
    duplicates: 0,
  });
  const pgRates: Record<string, number[]> = {
    'library-1': three(30_000, 27_000, 33_000),
    graphile: three(30_000, 30_000, 30_000),
    pgboss: three(8_000, 9_000, 10_000),
    'bullmq-pg': three(1_000, 1_000, 1_000),
    'library-2': three(36_000, 34_000, 38_000),
    'graphile-2': three(40_000, 40_000, 40_000),
    'library-4': three(33_000, 30_000, 35_000),
    'graphile-4': three(38_000, 38_000, 38_000),
  };
  const addRun = (rate: number, loneP99: number, refP99: number) => ({
    concurrent: { rate, p99: 10, jobs: 100 },
    lone: { p50: loneP99 / 3, p99: loneP99 },
    loneReference: { p50: refP99 / 3, p99: refP99 },
    stored: 200,
    errors: 0,
  });
  const addIds = [
    'library',
    'library-per-add',
    'library-bs3',
    'library-bs3-per-add',
    'library-pg',
    'library-pg-per-add',
    'bullmq',
    'bullmq-pg',
  ];
  const handlerIds = ['library', 'library-prefetch', 'library-pg', 'library-pg-prefetch', 'bullmq', 'graphile'];
  // Share of the ideal per run, 10 per queue: the median run first.
  const ofIdeal: Record<string, number[]> = {
    library: three(0.91, 0.85, 0.95),
    'library-prefetch': three(0.93, 0.9, 0.94),
    'library-pg': three(0.81, 0.78, 0.84),
    'library-pg-prefetch': three(0.8, 0.79, 0.83),
    bullmq: three(0.7, 0.7, 0.7),
    graphile: three(0.95, 0.95, 0.95),
  };
  return {
    date: '2026-12-07T00:00:00.000Z',
    machine: { cores: 2, cpu: 'test', memoryGiB: 1, platform: 'test', node: 'v20' },
    versions: { library: '0', root: {}, bench: {}, sqlite: {}, redis: '7' },
    config: {
      queues: ['a', 'b', 'c', 'd'],
      throughput: { runs: 3, total: 100, chunk: 10 },
      latency: { runs: 3, count: 100, gapMs: 10, warmup: 1 },
      idle: { runs: 3 },
      backlog: { runs: 3 },
      contention: { runs: 3 },
      postgres: { runs: 3 },
      concurrentAdd: { runs: 3 },
      realHandlers: { runs: 3 },
      pgLatency: { runs: 3 },
      telemetry: { runs: 3 },
    },
    throughput: {
      systems: throughputIds.map((id) => ({ id, label: id, concurrency: 50 })),
      results: Object.fromEntries(throughputIds.map((id) => [id, rates[id].map((rate) => throughputRun(rate, 1e6 / rate))])),
    },
    latency: {
      variants: [
        { id: 'library', label: 'library' },
        { id: 'bullmq', label: 'bullmq' },
      ],
      results: {
        library: [latencyRun(0.17, 0.93), latencyRun(0.15, 0.8), latencyRun(0.2, 1.1)],
        bullmq: [latencyRun(0.1, 0.5), latencyRun(0.1, 0.5), latencyRun(0.1, 0.5)],
      },
    },
    idle: {
      queueCounts: [1, 10],
      windowMs: 1000,
      pollInterval: 500,
      results: Object.fromEntries(
        ['library-1', 'library-10', 'naive-1', 'naive-10'].map((key) => [
          key,
          three(2, 2, 2).map((perSecond) => ({ perSecond, cpuMsPerSecond: 1 })),
        ]),
      ),
    },
    backlog: {
      backlogs: [10_000, 1_000_000],
      jobs: 100,
      queues: 4,
      concurrency: 50,
      fills: { 10_000: { ms: 1 }, 1_000_000: { ms: 1 } },
      results: {
        10_000: three(50_000, 50_000, 50_000).map((rate) => ({ rate, rssMiB: 100, firstJobMs: 1 })),
        // 100 %, 90 %, 104 % of the small backlog's rate; RSS 1.10×, 1.05×, 1.20×.
        1_000_000: [
          { rate: 50_000, rssMiB: 110, firstJobMs: 1 },
          { rate: 45_000, rssMiB: 105, firstJobMs: 1 },
          { rate: 52_000, rssMiB: 120, firstJobMs: 1 },
        ],
      },
    },
    contention: {
      concurrency: 50,
      total: 100,
      chunk: 10,
      results: Object.fromEntries(
        ['single', 'two'].map((key) => [
          key,
          three(1, 1, 1).map(() => ({ rate: 1000, busy: 0, errors: 0, duplicates: 0, completed: 100, total: 100, errorSamples: [] })),
        ]),
      ),
    },
    postgres: {
      server: '15',
      total: 100,
      chunk: 10,
      queues: 4,
      concurrency: 50,
      systems: Object.keys(pgRates).map((id) => ({ id, label: id, processes: Number(/-(\d)$/.exec(id)?.[1] ?? 1) })),
      results: Object.fromEntries(Object.entries(pgRates).map(([id, list]) => [id, list.map((rate) => pgRun(rate, 1e6 / rate))])),
    },
    'concurrent-add': {
      sizes: { total: 100, inFlight: 10, loneCount: 100 },
      systems: addIds.map((id) => ({ id, label: id })),
      results: Object.fromEntries(
        addIds.map((id) => [
          id,
          // The library against BullMQ (40,000 in every run): 2.50×, 2.25×, 3.50×; its lone p99 against the reference
          // in turns: 1.00×, 0.80×, 1.20×.
          id.startsWith('bullmq')
            ? three(40_000, 40_000, 40_000).map((rate) => addRun(rate, 1, 1))
            : [addRun(100_000, 1, 1), addRun(90_000, 0.8, 1), addRun(140_000, 1.2, 1)],
        ]),
      ),
    },
    'real-handlers': {
      loads: [
        { concurrency: 100, total: 100 },
        { concurrency: 10, total: 100 },
      ],
      systems: handlerIds.map((id) => ({ id, label: id })),
      results: Object.fromEntries(
        [100, 10].flatMap((concurrency) =>
          handlerIds.map((id) => [
            `${id}@${concurrency}`,
            ofIdeal[id].map((share) => ({ rate: share * 10_000, ideal: 10_000, ofIdeal: share, meanHandlerMs: 3, nominalMs: 3 })),
          ]),
        ),
      ),
    },
    'pg-latency': {
      count: 10,
      gapMs: 10,
      results: [2.37, 2.1, 2.6].map((p99) => ({
        fromResolved: { p50: 0.8, p95: 1.5, p99, max: 3 },
        fromCalled: { p50: 1, p99: 3 },
        samples: 10,
      })),
    },
    telemetry: {
      runs: 3,
      jobs: 100,
      variants: ['telemetry-off', 'api-no-sdk', 'sdk'],
      microNsPerJob: 10,
      microIterations: 10,
      results: {
        'telemetry-off': three(28_000, 28_000, 28_000).map((rate) => ({ rate, cpuMsPerKJob: 30, loaded: false, errors: 0 })),
        'api-no-sdk': three(28_000, 27_440, 28_560).map((rate) => ({ rate, cpuMsPerKJob: 30, loaded: true, errors: 0 })),
        sdk: three(25_000, 25_000, 25_000).map((rate) => ({ rate, cpuMsPerKJob: 35, loaded: true, errors: 0 })),
      },
    },
  };
}

/** Rows that judge no median of runs against a threshold: a count summed over every run, or medians side by side. */
const WITHOUT_RANGE = ['Idle statements/s independent of queue count', 'Two processes on one file: zero SQLITE_BUSY / locked errors'];

describe('bench report: the Targets table states the per-run range of what it judges', () => {
  const rows = targetRows(madeUpResults());
  const row = (target: string) => {
    const found = rows.find(([what]) => what === target);
    if (!found) throw new Error(`no row "${target}" among ${rows.map(([what]) => what).join('; ')}`);
    return found;
  };

  it('every row of every scenario gives its range, but the rows that judge no median', () => {
    // All modules gave their rows: the SQLite scenarios, CPU, PostgreSQL, concurrent adds, real handlers, latency, telemetry.
    expect(rows.length).toBeGreaterThanOrEqual(40);
    const withoutRange = rows
      .filter(([, measured]) => !/per run \d[\d,.]*(–\d[\d,.]*)?( ?(×|%|ms|jobs\/s))/.test(measured))
      .map(([what]) => what);
    expect(withoutRange).toEqual(WITHOUT_RANGE);
  });

  it('a ratio row gives the range of its per-run ratios, with the verdict on their median', () => {
    // 2.80×, 2.52×, 3.08×: one run above the threshold, the median below it.
    expect(row('End-to-end throughput ≥ 3× BullMQ').slice(1, 3)).toEqual(['2.80× (70,000 jobs/s; per run 2.52–3.08×)', false]);
    expect(row('1,000 concurrent add() ≥ 3× BullMQ, SQLite (sqlite3)').slice(1, 3)).toEqual([
      '2.50× (100,000 adds/s; per run 2.25–3.50×)',
      false,
    ]);
    expect(row("1,000 concurrent add() ≥ 3× BullMQ's PostgreSQL backend, PostgreSQL")[1]).toContain('per run 2.25–3.50×');
    expect(row('lone add p99 unchanged by group commit, SQLite (sqlite3)')[1]).toContain('same-run ratio 1.00×, per run 0.80–1.20×');
    expect(row('PostgreSQL, 1 process ≥ 1.5× graphile-worker (same runs)').slice(1, 3)).toEqual(['1.00× (per run 0.90–1.10×)', false]);
    expect(row('PostgreSQL, 2 processes ahead of graphile-worker with 2 processes')[1]).toMatch(/^0\.90× \(per run 0\.85–0\.95×; /);
    expect(row('RSS bounded with a 1M backlog (≤ 10k-backlog RSS + 25 %)').slice(1, 3)).toEqual([
      '110 MiB vs 100 MiB (per run 1.05–1.20×)',
      true,
    ]);
    expect(row('OpenTelemetry API installed, no SDK: ≤ 3 % of throughput (end to end, paired runs)')[1]).toContain(
      '1.000× off in paired runs (per run 0.980–1.020×;',
    );
  });

  it('a share row gives the range of its per-run shares', () => {
    expect(row('End-to-end throughput ≥ 60 % of raw node-sqlite3 ceiling').slice(1, 3)).toEqual(['70 % (per run 63–77 %)', true]);
    expect(row('1M backlog throughput ≥ 80 % of 10k backlog').slice(1, 3)).toEqual(['100 % (per run 90–104 %)', true]);
    // 91 %, 85 %, 95 % of the ideal: met on the median though one run fell short.
    expect(row('Real handlers ≥ 90 % of ideal where the database is not the bottleneck (library, 10 per queue)').slice(1, 3)).toEqual([
      '91 % (9,100 of 10,000 jobs/s; per run 85–95 %)',
      true,
    ]);
    expect(
      row('Real handlers ≥ 80 % of ideal where the database is not the bottleneck (library-pg-prefetch, 10 per queue)').slice(1, 3),
    ).toEqual(['80 % (8,000 of 10,000 jobs/s; per run 79–83 %)', true]);
  });

  it('a threshold row on an absolute figure gives the range of its runs', () => {
    expect(row('≥ 40,000 jobs/s with better-sqlite3')[1]).toBe('60,000 jobs/s (per run 58,000–66,000 jobs/s)');
    expect(row('add() → handler start p99 < 10 ms')[1]).toBe('0.93 ms (per run 0.80–1.10 ms)');
    expect(row('PostgreSQL add() → start across processes (NOTIFY) p99 < 5 ms')[1]).toBe('2.37 ms (p50 0.80 ms; p99 per run 2.10–2.60 ms)');
  });

  it('one run gives its one value as its range; none gives none', () => {
    expect(pairedSpread([2.81], [1])).toBe('per run 2.81×');
    expect(pairedSpread([0.64], [1], true)).toBe('per run 64 %');
    expect(perRun([], 2, ' ms')).toBe('');
  });

  it('the sections name the number of runs they were taken from', () => {
    const report = buildReport(madeUpResults());
    expect(report).toContain('## 7. Concurrent single adds');
    expect(report).toMatch(/BullMQ: `Queue\.add\(\)`[^\n]*Median of 3 interleaved runs/);
    expect(report).toMatch(/concurrency with its local queue of that size\. Median of 3 interleaved runs\./);
    expect(report).toContain('concurrent add() 3, real handlers 3, PostgreSQL latency 3, OpenTelemetry 3.');
  });
});
