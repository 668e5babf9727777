import { Test, TestingModule } from '@nestjs/testing';
import { Subscription } from 'rxjs';
import { ProcessorOptions, QueueEvents, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { CountingConnection, LoggedStatement, StatementLog, countingConnection } from './support/counting-data-source';
import { waitFor } from './support/wait-for';
import { describeEachBackend } from './support/backends';

const POLL_INTERVAL = 100;
/** Claim rounds measured. */
const ROUNDS = 8;
/** Claim rounds skipped first, so boot-time statements (schema, first lease recovery) stay out of the window. */
const WARM_UP = 2;

/** What an idle app sent between two of its fallback claims, ROUNDS poll periods apart. */
interface IdleWindow {
  claims: LoggedStatement[];
  others: LoggedStatement[];
  /** Wall time between the first and the last claim bounding the window. */
  elapsed: number;
}

/**
 * Invariant 5: idle cost does not grow with the number of queues. One poller claims for every queue in one
 * statement per fallback period, so 50 idle queues cost what 1 does.
 */
describeEachBackend('idle cost', (backend) => {
  const cleanups: (() => void)[] = [];
  let app: TestingModule | undefined;
  let connection: CountingConnection | undefined;

  afterEach(async () => {
    await app?.close();
    await connection?.destroy();
    app = undefined;
    connection = undefined;
    cleanups.splice(0).forEach((cleanup) => cleanup());
  });

  /**
   * Boots an app with `queueCount` idle queues on a fresh database and records what it sends while idle. With
   * `watchers`, the app has `clusterEvents` and, before the window, that many QueueEvents subscribers and that many
   * waiters (`waitUntilFinished`) on jobs of a queue nobody processes.
   */
  async function measureIdle(
    queueCount: number,
    watchers?: number,
    clusterEvents = watchers !== undefined,
    processorOptions: ProcessorOptions = {},
  ): Promise<IdleWindow> {
    const db = backend.tempDatabase();
    cleanups.push(db.cleanup);
    connection = countingConnection(db);
    const log = connection.log;
    app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: POLL_INTERVAL, clusterEvents })],
      // Classes generated at run time: one distinct @Processor class per queue, as an app with 50 queues has.
      providers: Array.from({ length: queueCount }, (_, i) => defineProcessor(`idle-${i}`, async () => undefined, processorOptions)),
    }).compile();
    await app.init();
    const subscriptions: Subscription[] = [];
    if (watchers !== undefined) {
      const events = app.get(QueueEvents);
      for (let i = 0; i < watchers; i++) subscriptions.push(events.subscribe(() => undefined));
      await events.listening();
      const jobs = await app.get(QueueProducer).addBulk(
        'parked',
        Array.from({ length: watchers }, (_, n) => ({ data: n })),
      );
      // Rejected with ShutdownAbortError when the app closes: expected.
      for (const job of jobs) job.waitUntilFinished().catch(() => undefined);
      await waitFor(
        () => log.statements.some((statement) => /json_each|unnest\(\$1::bigint\[\]\)/.test(statement.sql)),
        'a finished-jobs check',
      );
      log.statements.splice(0);
    }

    // The clock of the measurement is the claim counter itself: wait for the claims, not for a time.
    await waitFor(() => log.claims >= WARM_UP + ROUNDS + 1, `${WARM_UP + ROUNDS + 1} claim rounds`, 30_000, 5);
    subscriptions.forEach((subscription) => subscription.unsubscribe());
    await app.close();
    app = undefined;
    await connection.destroy();

    const claimIndexes = log.statements.flatMap((statement, index) => (StatementLog.isClaim(statement) ? [index] : []));
    const from = claimIndexes[WARM_UP];
    const to = claimIndexes[WARM_UP + ROUNDS];
    const window = log.statements.slice(from, to);
    return {
      claims: window.filter(StatementLog.isClaim),
      others: window.filter((statement) => !StatementLog.isClaim(statement)),
      elapsed: log.statements[to].at - log.statements[from].at,
    };
  }

  /**
   * One plain idle queue, the baseline of every test below: measured once per backend (by the first test that
   * needs it) rather than once per test, as the measurement only depends on the backend.
   */
  let plainOne: Promise<IdleWindow> | undefined;
  const measurePlainOne = (): Promise<IdleWindow> => (plainOne ??= measureIdle(1));

  it('sends the same few statements per poll period with 50 queues as with 1', async () => {
    const one = await measurePlainOne();
    const fifty = await measureIdle(50);

    expect(one.claims).toHaveLength(ROUNDS);
    expect(fifty.claims).toHaveLength(ROUNDS);
    // The other idle statements (the scheduler's due-schedules check, lease recovery...) run on their own
    // process-wide timers, not in step with the claim timer: over ROUNDS claim periods a timer of the same
    // period fires ROUNDS times, or once more or less depending on where its phase falls relative to the
    // window's two bounding claims. That is the only slack allowed.
    expect(Math.abs(fifty.others.length - one.others.length)).toBeLessThanOrEqual(1);
    expect(Math.abs(fifty.claims.length + fifty.others.length - (one.claims.length + one.others.length))).toBeLessThanOrEqual(1);
    // Small: at most two statements per poll period (the claim and one housekeeping check), plus the boundary.
    for (const idle of [one, fifty]) expect(idle.claims.length + idle.others.length).toBeLessThanOrEqual(2 * ROUNDS + 1);
    // None of the other idle statements is per queue: none carries a queue name.
    for (const statement of fifty.others) expect(statement.parameters.flat()).not.toContainEqual(expect.stringMatching(/^idle-/));

    // One statement claims for every queue (per-queue pollers would each send their own, naming one queue)...
    const allQueues = Array.from({ length: 50 }, (_, i) => `idle-${i}`).sort();
    for (const claim of fifty.claims) {
      const named = new Set(
        claim.parameters.flat().filter((value): value is string => typeof value === 'string' && value.startsWith('idle-')),
      );
      expect([...named].sort()).toEqual(allQueues);
    }
    // ...and claims come at the fallback rate, not faster: ROUNDS claims span ROUNDS poll periods whatever the
    // number of queues. A lower bound on elapsed time, with one period of slack for timer jitter on the first claim.
    expect(fifty.elapsed).toBeGreaterThanOrEqual((ROUNDS - 1) * POLL_INTERVAL);
    expect(one.elapsed).toBeGreaterThanOrEqual((ROUNDS - 1) * POLL_INTERVAL);
  });

  it('with clusterEvents, 50 event subscribers and 50 waiters cost what 1 of each does: at most one statement each per poll', async () => {
    const plain = await measurePlainOne();
    const one = await measureIdle(1, 1);
    const fifty = await measureIdle(1, 50);

    for (const idle of [plain, one, fifty]) expect(idle.claims).toHaveLength(ROUNDS);
    // Independent of the number of listeners and waiters (timer phase slack of one per periodic task, and of the
    // processor announcer's whole beat, five statements on SQLite since the groups' windows table: one beat may fall in one
    // window and not the other).
    expect(Math.abs(fifty.others.length - one.others.length)).toBeLessThanOrEqual(6);
    // The events read and the finished-jobs check: one each per poll period over what a plain idle app sends.
    expect(one.others.length - plain.others.length).toBeLessThanOrEqual(2 * ROUNDS + 2);
    const reads = (idle: IdleWindow) => idle.others.filter((statement) => /nest_queue_events/.test(statement.sql)).length;
    const checks = (idle: IdleWindow) =>
      idle.others.filter((statement) => /json_each|unnest\(\$1::bigint\[\]\)/.test(statement.sql)).length;
    for (const idle of [one, fifty]) {
      expect(reads(idle)).toBeLessThanOrEqual(ROUNDS + 1);
      expect(reads(idle)).toBeGreaterThanOrEqual(ROUNDS - 2);
      expect(checks(idle)).toBeLessThanOrEqual(ROUNDS + 1);
    }
    expect(reads(plain) + checks(plain)).toBe(0);
  });

  it('with clusterEvents and nobody listening anywhere: one reader check per poll, and nothing published', async () => {
    const plain = await measurePlainOne();
    const quiet = await measureIdle(1, undefined, true);
    expect(quiet.claims).toHaveLength(ROUNDS);
    const checks = quiet.others.filter((statement) => /nest_queue_event_readers/.test(statement.sql));
    expect(checks.length).toBeLessThanOrEqual(ROUNDS + 1);
    expect(quiet.others.length - plain.others.length).toBeLessThanOrEqual(ROUNDS + 2);
    expect(quiet.others.filter((statement) => /nest_queue_events\b/.test(statement.sql))).toEqual([]);
  });

  it('with rate-limited and globally limited queues: the same statements as plain queues, no limit read per poll', async () => {
    const plain = await measureIdle(3);
    const limited = await measureIdle(3, undefined, false, { limiter: { max: 5, duration: 1000 }, globalConcurrency: 2 });
    expect(limited.claims).toHaveLength(ROUNDS);
    // An empty limited queue comes back short every round; one read finds it open (drained), and none follows.
    expect(Math.abs(limited.others.length - plain.others.length)).toBeLessThanOrEqual(1);
    for (const claim of limited.claims) {
      const named = new Set(claim.parameters.flat().filter((value) => typeof value === 'string' && value.startsWith('idle-')));
      expect(named.size).toBe(3);
    }
  });

  it('with group-limited queues: the same statements as plain queues, no group window read per poll', async () => {
    const plain = await measureIdle(3);
    const limited = await measureIdle(3, undefined, false, { groupLimiter: { max: 5, duration: 1000 } });
    expect(limited.claims).toHaveLength(ROUNDS);
    // An empty group-limited queue comes back short every round; one read finds no group held back (drained), and
    // none follows.
    expect(Math.abs(limited.others.length - plain.others.length)).toBeLessThanOrEqual(1);
  });
});
