/**
 * Jobs in a queue that no process has a processor for (the issue's `add('send-welcome', …)`) no longer wait
 * silently: `listQueues()` says which queues some process sharing the database processes, the health indicator
 * lists the unprocessed ones, and a processing process warns once per such queue, suggesting the closest queue.
 * Processing processes announce their queues in one statement per period; another process's announcement counts,
 * and lapses once that process is gone.
 */
import { LoggerService } from '@nestjs/common';
import { QueueAdmin, QueueProducer } from '../lib';
import { QueueHealthIndicator } from '../lib/terminus';
import { defineProcessor } from './fixtures/define-processor';
import { startChildApp } from './support/child-app';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

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

describeEachBackend('queues no process processes', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('lists the queue as unprocessed, reports it in health, and warns once, naming the closest processed queue', async () => {
    const logger = new CapturingLogger();
    const app = await current.startApp({
      module: { pollInterval: 50 },
      providers: [defineProcessor('orders', async () => 'ok')],
      logger,
    });
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

    // The warning waits until the oldest job is two announcement periods old (1.5 s each at this poll interval).
    const warned = () => logger.warnings.filter((line) => line.includes('"ordres"'));
    await waitFor(() => warned().length > 0, 'a warning about queue ordres', 15_000);
    expect(warned()[0]).toContain('Did you mean queue "orders"?');
    expect(warned()[0]).toContain("add('orders', data, { name: 'ordres' })");
    // Once per queue: the beats that warn about a later unprocessed queue (two periods later at least) do not repeat it.
    await producer.add('invoices', { n: 4 });
    await waitFor(() => logger.warnings.some((line) => line.includes('"invoices"')), 'a warning about queue invoices', 15_000);
    expect(warned()).toHaveLength(1);
    expect(logger.warnings.find((line) => line.includes('"invoices"'))).not.toContain('Did you mean');
  });

  it("counts another process's processor, and stops counting it once that process is gone", async () => {
    const child = startChildApp({ connection: current.db.options, module: { pollInterval: 50 }, queues: [{ name: 'remote-work' }] });
    try {
      await child.printed('READY');
      const app = await current.startApp({ module: { processing: false } });
      const admin = app.get(QueueAdmin);
      const remote = async () => (await admin.listQueues()).find((queue) => queue.name === 'remote-work');
      await waitFor(async () => (await remote())?.processed === true, 'the child announced remote-work');
      expect(await remote()).toMatchObject({ hasProcessor: false, processed: true });
      await app.get(QueueProducer).add('remote-work', {});
      expect((await app.get(QueueHealthIndicator).isHealthy('queue')).queue).toMatchObject({ unprocessedQueues: [] });

      expect(await child.stop()).toBe(0);
      // Three periods of 1.5 s at the child's poll interval.
      await waitFor(async () => (await remote())?.processed === false, 'the announcement lapsed', 15_000);
    } finally {
      if (child.process.exitCode === null) await child.kill();
    }
  });
});
