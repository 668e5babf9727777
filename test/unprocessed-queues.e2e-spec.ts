/**
 * Jobs in a queue that no process has a processor for (the issue's `add('send-welcome', …)`) no longer wait
 * silently: `listQueues()` says which queues some process sharing the database processes, the health indicator
 * lists the unprocessed ones, and a processing process warns once per such queue, suggesting the closest queue.
 * Processing processes announce their queues in one statement per period; another process's announcement counts,
 * and lapses once that process is gone.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { LoggerService } from '@nestjs/common';
import { QueueAdmin, QueueProducer } from '../lib';
import { QueueHealthIndicator } from '../lib/terminus';
import { defineProcessor } from './fixtures/define-processor';
import { startChildApp } from './support/child-app';
import { itEachBackendConcurrently, withTestApps } from './support/side-by-side';
import { waitFor } from './support/wait-for';

/**
 * The poll interval of the processing apps here: 30 of them (990 ms) are under the announcement period's floor, so the
 * period, which every wait of this file counts in, is the shortest the library has: 1 s (it was 1.5 s at 50 ms).
 */
const POLL_INTERVAL = 33;

/** Keeps the warnings one test's app logged (through the router below). */
class CapturingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

/**
 * Nest's logger is one per process: `setLogger` on a testing module replaces it for every app (`Logger.overrideLogger`),
 * so tests that run side by side cannot each install their own. Every app of this file logs to this router instead,
 * which hands a warning to the logger of the test whose app wrote it: an app's timers, and the queries they await,
 * run in the async context of the `init()` that started them, and each test starts its app inside its own context.
 * An app compiled without it would put Nest's own testing logger back for the whole process: the tests' warnings
 * would then reach none of them, and each would time out waiting for its own (a failure, never a false pass).
 */
class RoutingLogger implements LoggerService {
  private readonly route = new AsyncLocalStorage<CapturingLogger>();
  /** Runs `start` (an app's compile and init) so that the warnings of that app reach `logger`. */
  routeTo<T>(logger: CapturingLogger, start: () => Promise<T>): Promise<T> {
    return this.route.run(logger, start);
  }
  log(): void {}
  error(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown): void {
    this.route.getStore()?.warn(message);
  }
}

const router = new RoutingLogger();

/**
 * The tests wait for announcement periods (and one for a child's start), so the backends run side by side
 * (test/support/side-by-side.ts), each test on a database of its own.
 */
describe('queues no process processes (the backends side by side)', () => {
  itEachBackendConcurrently(
    'lists the queue as unprocessed, reports it in health, and warns once, naming the closest processed queue',
    (backend) =>
      withTestApps(backend, async (apps) => {
        const logger = new CapturingLogger();
        const app = await router.routeTo(logger, () =>
          apps.startApp({
            module: { pollInterval: POLL_INTERVAL },
            providers: [defineProcessor('orders', async () => 'ok')],
            logger: router,
          }),
        );
        const producer = app.get(QueueProducer);
        const admin = app.get(QueueAdmin);
        await producer.add('orders', { n: 1 });
        await producer.add('ordres', { n: 2 });
        await producer.add('ordres', { n: 3 });

        const queues = Object.fromEntries((await admin.listQueues()).map((queue) => [queue.name, queue]));
        expect(queues.orders).toMatchObject({ hasProcessor: true, processed: true });
        expect(queues.ordres).toMatchObject({ hasProcessor: false, processed: false, counts: { pending: 2 } });
        const health = (await app.get(QueueHealthIndicator).isHealthy('queue')).queue;
        expect(health).toMatchObject({ status: 'up', unprocessedQueues: ['ordres'], queues: { ordres: { processed: false } } });

        // The warning waits until the oldest job is two announcement periods old (1 s each at this poll interval).
        const warned = () => logger.warnings.filter((line) => line.includes('"ordres"'));
        await waitFor(() => warned().length > 0, 'a warning about queue ordres', 15_000);
        expect(warned()[0]).toContain('Did you mean queue "orders"?');
        expect(warned()[0]).toContain("add('orders', data, { name: 'ordres' })");
        // Once per queue: the beats that warn about a later unprocessed queue (two periods later at least) do not repeat it.
        await producer.add('invoices', { n: 4 });
        await waitFor(() => logger.warnings.some((line) => line.includes('"invoices"')), 'a warning about queue invoices', 15_000);
        expect(warned()).toHaveLength(1);
        expect(logger.warnings.find((line) => line.includes('"invoices"'))).not.toContain('Did you mean');
      }),
  );

  itEachBackendConcurrently("counts another process's processor, and stops counting it once that process is gone", (backend) =>
    withTestApps(backend, async (apps) => {
      const child = startChildApp({
        connection: apps.db.options,
        module: { pollInterval: POLL_INTERVAL },
        queues: [{ name: 'remote-work' }],
      });
      try {
        // This process's app boots while the child loads: it processes nothing, so it announces nothing either way.
        const [app] = await Promise.all([
          router.routeTo(new CapturingLogger(), () => apps.startApp({ module: { processing: false }, logger: router })),
          child.printed('READY'),
        ]);
        const admin = app.get(QueueAdmin);
        const remote = async () => (await admin.listQueues()).find((queue) => queue.name === 'remote-work');
        await waitFor(async () => (await remote())?.processed === true, 'the child announced remote-work');
        expect(await remote()).toMatchObject({ hasProcessor: false, processed: true });
        await app.get(QueueProducer).add('remote-work', {});
        expect((await app.get(QueueHealthIndicator).isHealthy('queue')).queue).toMatchObject({ unprocessedQueues: [] });

        expect(await child.stop()).toBe(0);
        // Three periods of 1 s at the child's poll interval after its last announcement.
        await waitFor(async () => (await remote())?.processed === false, 'the announcement lapsed', 15_000);
      } finally {
        if (child.process.exitCode === null) await child.kill();
      }
    }),
  );
});
