/**
 * Queue names that are also the names of Object.prototype's members (`__proto__`, `constructor`, `toString`) are valid
 * names: what reads queues by name (metrics, the health indicator, the dashboard's overview) must see them as queues,
 * never as a plain object's inherited members.
 */
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { QueueAdmin, QueueProducer } from '../lib';
import { QueueHealthIndicator } from '../lib/terminus';
import { DashboardApp, startDashboardApp } from './fixtures/dashboard-app';
import { defineProcessor } from './fixtures/define-processor';
import { TestDatabase, describeEachBackend } from './support/backends';
import { waitFor } from './support/wait-for';

const NAMES = ['__proto__', 'constructor', 'toString'];

@Module({ providers: NAMES.map((queue) => defineProcessor(queue, async () => `done in ${queue}`)) })
class ObjectKeyQueuesModule {}

// What is read here is the library's own objects, the same on every backend: one backend shows it.
describeEachBackend(
  'queues named like members of Object.prototype',
  (backend) => {
    let db: TestDatabase;
    let running: DashboardApp | undefined;
    beforeEach(async () => (db = await backend.migratedDatabase()));
    afterEach(async () => {
      await running?.app.close();
      running = undefined;
      db.cleanup();
    });

    it('are listed as queues by getMetrics, the health indicator and the dashboard overview', async () => {
      running = await startDashboardApp(db, 'express', {}, [ObjectKeyQueuesModule, TerminusModule]);
      const { app } = running;
      const admin = app.get(QueueAdmin);
      const job = await app.get(QueueProducer).add('__proto__', {});
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the job of __proto__ completed');

      const metrics = await admin.getMetrics();
      expect(Object.keys(metrics.queues)).toContain('__proto__');
      expect(Object.getOwnPropertyDescriptor(metrics.queues, '__proto__')?.value).toMatchObject({ completed: 1 });
      // Only an own member is a queue: a name with no jobs in the window is not there, inherited or not.
      expect(Object.getPrototypeOf(metrics.queues)).toBe(Object.prototype);

      const response = await fetch(`${running.url}/queues/api/overview`);
      const overview = (await response.json()) as { queues: { name: string; metrics: { completed: number } | null }[] };
      const shown = new Map(overview.queues.map((queue) => [queue.name, queue.metrics]));
      expect(shown.get('__proto__')).toMatchObject({ completed: 1 });
      // Queues without finished jobs in the window have no metrics: null, not Object's constructor or toString.
      expect(shown.get('constructor')).toBeNull();
      expect(shown.get('toString')).toBeNull();

      // A due job that waits past maxPendingAge in a queue named __proto__ makes the queue, and the check, down.
      await admin.pause('__proto__');
      await app.get(QueueProducer).add('__proto__', {});
      const indicator = app.get(QueueHealthIndicator);
      await waitFor(async () => {
        const result = await indicator.isHealthy('queue', { maxPendingAge: 1 });
        const queues = result.queue.queues as Record<string, { status: string }>;
        return Object.keys(queues).includes('__proto__') && result.queue.status === 'down';
      }, 'the health check down for the queue named __proto__');
    });
  },
  ['better-sqlite3'],
);
