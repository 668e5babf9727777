import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { JOBS_TABLE, Job, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

/** Far beyond every wait below: a job handled in time was not found by the fallback poll. */
const NO_POLL = 600_000;
/** How long a wake-up may take here before the test calls it missing (a loaded CI machine included). */
const WAKE_DEADLINE_MS = 15_000;

/** Only on a node-sqlite3 connection does SQLite's update hook reach JavaScript. */
describeEachBackend('wake-ups without polling', (backend) => {
  const describeNodeSqlite3 = backend.name === 'sqlite3' ? describe : describe.skip;
  let app: TestingModule | undefined;
  let dataSource: DataSource | undefined;
  let handled: string[];

  const Recorder = defineProcessor<{ name: string }>('wake', async (job: Job<{ name: string }>) => {
    handled.push(job.data.name);
  });

  beforeEach(() => {
    handled = [];
  });

  afterEach(() => {
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend, MIGRATED);
  // After perTestApp's hook (declared later, runs later): a borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    dataSource = undefined;
  });

  it('add() in this process wakes the idle poller at once, long before its next poll', async () => {
    app = await current.startApp({ module: { pollInterval: NO_POLL }, providers: [Recorder] });
    const producer = app.get(QueueProducer);

    // Several rounds: every one starts from an idle poller whose only scheduled claim is ten minutes away.
    for (const name of ['first', 'second', 'third']) {
      await producer.add('wake', { name });
      await waitFor(() => handled.includes(name), `job ${name} handled without a poll`, WAKE_DEADLINE_MS);
    }
    expect(handled).toEqual(['first', 'second', 'third']);
  });

  it('a delayed add(), a delayed addBulk() and a retry with backoff run on time: a timer wakes the poller, not its next poll', async () => {
    const attempts = new Map<string, number>();
    const Flaky = defineProcessor<{ name: string }>(
      'timed',
      async (job: Job<{ name: string }>) => {
        attempts.set(job.data.name, job.attempt);
        if (job.data.name === 'retried' && job.attempt === 1) throw new Error('planned failure');
        handled.push(job.data.name);
      },
      { maxAttempts: 2, backoff: { type: 'fixed', delay: 1500 } },
    );
    app = await current.startApp({ module: { pollInterval: NO_POLL }, providers: [Flaky] });
    const producer = app.get(QueueProducer);
    // One at a time, each added while the poller is idle with its next poll ten minutes away: only the timer
    // that this very write armed can run it (a job added at once, or another timer, would wake the poller too).
    const rounds: [string, () => Promise<unknown>][] = [
      ['delayed-add', () => producer.add('timed', { name: 'delayed-add' }, { delay: 1500 })],
      ['delayed-bulk', () => producer.addBulk('timed', [{ data: { name: 'delayed-bulk' }, options: { delay: 1500 } }])],
      ['retried', () => producer.add('timed', { name: 'retried' })],
    ];
    for (const [name, add] of rounds) {
      await add();
      await waitFor(() => handled.includes(name), `${name} ran without a poll`, WAKE_DEADLINE_MS);
    }
    expect(attempts.get('retried')).toBe(2);
  });

  describeNodeSqlite3('on a node-sqlite3 DataSource shared with the application', () => {
    it('a job the application inserts itself, in its own transaction, wakes the poller through the update hook', async () => {
      dataSource = new DataSource({ type: 'sqlite', database: current.db.path });
      await dataSource.initialize();
      await dataSource.query('CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER NOT NULL)');
      // On the application's own DataSource instead of the database's options.
      app = await current.startApp({
        replaceImports: true,
        imports: [SqliteQueueModule.forRoot({ dataSource, pollInterval: NO_POLL })],
        providers: [Recorder],
      });
      // The boot claim is over once a first job went through: from here on only a wake-up can claim.
      await app.get(QueueProducer).add('wake', { name: 'warm-up' });
      await waitFor(() => handled.includes('warm-up'), 'warm-up job handled', WAKE_DEADLINE_MS);

      // An outbox-style write: the order and its job commit together, without the queue's producer.
      const now = Date.now();
      await dataSource.transaction(async (manager) => {
        await manager.query('INSERT INTO orders (total) VALUES (?)', [42]);
        await manager.query(
          `INSERT INTO ${JOBS_TABLE} (queue, status, data, priority, run_at, attempts, max_attempts, created_at, updated_at)
           VALUES ('wake', 'pending', ?, 0, ?, 0, 3, ?, ?)`,
          [JSON.stringify({ name: 'from-the-app' }), now, now, now],
        );
      });

      await waitFor(() => handled.includes('from-the-app'), 'the job inserted by the application handled without a poll', WAKE_DEADLINE_MS);
    });
  });
});
