import { setTimeout as sleep } from 'node:timers/promises';
import { Provider, ServiceUnavailableException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { Job, Processor, QueueAdmin, QueueProcessor, QueueProducer, SqliteQueueModule, SqliteQueueModuleOptions } from '../lib';
import { QueueHealthIndicator, QueueHealthResult } from '../lib/terminus';
import { errorOf } from './support/ops';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface WorkData {
  fail?: boolean;
  /** Work this long (ms): a job with a known lower bound on its run time. */
  workFor?: number;
}

@Processor('work')
class WorkProcessor implements QueueProcessor<WorkData, string> {
  async process(job: Job<WorkData>): Promise<string> {
    if (job.data.workFor) await sleep(job.data.workFor);
    if (job.data.fail) throw new Error('planned');
    return 'ok';
  }
}

@Processor('side')
class SideProcessor implements QueueProcessor<unknown, string> {
  async process(): Promise<string> {
    return 'ok';
  }
}

describeEachBackend('health indicator (with @nestjs/terminus) and metrics', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  async function startApp(providers: Provider[], options: SqliteQueueModuleOptions = {}) {
    current.app = await Test.createTestingModule({
      imports: [
        TerminusModule.forRoot({ logger: false }),
        SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 100, ...options }),
      ],
      providers,
    }).compile();
    await current.app.init();
    return {
      admin: current.app.get(QueueAdmin),
      producer: current.app.get(QueueProducer),
      indicator: current.app.get(QueueHealthIndicator),
      health: current.app.get(HealthCheckService),
    };
  }

  const statusOf = (result: QueueHealthResult) => result.queue.status;
  const pendingAgeOf = (result: QueueHealthResult, queue: string) =>
    (result.queue.queues as Record<string, { oldestPendingAgeMs: number }>)[queue]?.oldestPendingAgeMs ?? 0;

  describe('QueueHealthIndicator', () => {
    it('is up through HealthCheckService when the database answers, the poller runs and nothing due waits', async () => {
      const { indicator, health, producer, admin } = await startApp([WorkProcessor, SideProcessor]);
      // Right after boot: the poller has only just started, which is not silence.
      const atBoot = await indicator.isHealthy('queue');
      expect(atBoot.queue).toMatchObject({ status: 'up', database: 'up' });

      const job = await producer.add<WorkData>('work', {});
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'job completed');
      const result = await health.check([() => indicator.isHealthy('queue')]);
      expect(result.status).toBe('ok');
      expect(result.info?.queue).toMatchObject({
        status: 'up',
        database: 'up',
        poller: 'up',
        queues: { work: { status: 'up', oldestPendingAgeMs: 0 }, side: { status: 'up', oldestPendingAgeMs: 0 } },
      });
      expect(typeof result.info?.queue?.pollerLastRoundAgoMs).toBe('number');
    });

    it('is down (HealthCheckService throws ServiceUnavailableException) when a paused queue’s oldest due job waits longer than maxPendingAge; up again once it runs', async () => {
      const { indicator, health, producer, admin } = await startApp([WorkProcessor, SideProcessor]);
      const check = () => health.check([() => indicator.isHealthy('queue', { maxPendingAge: 200 })]);
      await waitFor(async () => statusOf(await indicator.isHealthy('queue', { maxPendingAge: 200 })) === 'up', 'up before');

      await admin.pause('work');
      const stuck = await producer.add<WorkData>('work', {});
      // A job due in an hour does not count, however long the queue is paused.
      await producer.add<WorkData>('side', {}, { delay: 3_600_000 });
      await waitFor(
        async () => statusOf(await indicator.isHealthy('queue', { maxPendingAge: 200 })) === 'down',
        'down once the job waited 200 ms',
      );

      const error = await errorOf(check);
      expect(error).toBeInstanceOf(ServiceUnavailableException);
      const response = (error as ServiceUnavailableException).getResponse() as {
        status: string;
        error: { queue: { queues: { work: { oldestPendingAgeMs: number } } } };
      };
      expect(response.status).toBe('error');
      expect(response.error.queue).toMatchObject({
        status: 'down',
        database: 'up',
        poller: 'up',
        queues: { work: { status: 'down' }, side: { status: 'up' } },
      });
      expect(response.error.queue.queues.work.oldestPendingAgeMs).toBeGreaterThan(200);
      // Checking only other queues ignores it.
      expect((await health.check([() => indicator.isHealthy('queue', { maxPendingAge: 200, queues: ['side'] })])).status).toBe('ok');

      await admin.resume('work');
      await waitFor(async () => (await admin.getJob(stuck.id))?.status === 'completed', 'job ran after resume');
      expect((await check()).status).toBe('ok');
    });

    it('reports the poller down once its last round is older than maxPollerSilence', async () => {
      const { indicator } = await startApp([WorkProcessor], { pollInterval: 1000 });
      await waitFor(async () => (await indicator.isHealthy('queue')).queue.poller === 'up', 'poller up');
      // Rounds come about once a second when idle: 1 ms of allowed silence is soon exceeded.
      let down: QueueHealthResult | undefined;
      await waitFor(
        async () => (down = await indicator.isHealthy('probe', { maxPollerSilence: 1 })).probe.poller === 'down',
        'poller silent for more than 1 ms',
      );
      expect(down!.probe).toMatchObject({ status: 'down', poller: 'down', database: 'up' });
    });

    it('in a process that does not process, checks every queue with due jobs and says the poller is not running here', async () => {
      const { indicator, producer } = await startApp([], { processing: false });
      expect((await indicator.isHealthy('queue')).queue).toMatchObject({ status: 'up', poller: 'not running in this process', queues: {} });
      await producer.add('orphan', {});
      await waitFor(
        async () => statusOf(await indicator.isHealthy('queue', { maxPendingAge: 100 })) === 'down',
        'the unprocessed job is overdue',
      );
      expect((await indicator.isHealthy('queue', { maxPendingAge: 100 })).queue).toMatchObject({ queues: { orphan: { status: 'down' } } });
    });
  });

  describe('QueueAdmin.getMetrics', () => {
    it('counts completions and final failures per queue and per minute, and gives wait and run time percentiles', async () => {
      const { admin, producer, indicator } = await startApp([WorkProcessor, SideProcessor]);
      // One job waits at least 300 ms: its queue is paused until the health indicator sees it that old.
      await admin.pause('work');
      const waited = await producer.add<WorkData>('work', {});
      await waitFor(async () => pendingAgeOf(await indicator.isHealthy('queue'), 'work') >= 300, 'the job waited 300 ms');
      await admin.resume('work');
      await waitFor(async () => (await admin.getJob(waited.id))?.status === 'completed', 'the waiting job ran');
      const jobs = [
        waited,
        ...(await producer.addBulk<WorkData>(
          'work',
          Array.from({ length: 6 }, () => ({ data: {} })),
        )),
        ...(await producer.addBulk<WorkData>(
          'work',
          Array.from({ length: 2 }, () => ({ data: { fail: true }, options: { maxAttempts: 1 } })),
        )),
        // Works 300 ms.
        await producer.add<WorkData>('work', { workFor: 300 }),
        await producer.add('side', {}),
      ];
      // Cancelled jobs are not activity.
      const cancelled = await producer.add<WorkData>('work', {}, { delay: 3_600_000 });
      await admin.cancel(cancelled.id);
      await waitFor(async () => {
        const statuses = await Promise.all(jobs.map(async (job) => (await admin.getJob(job.id))?.status));
        return statuses.every((status) => status === 'completed' || status === 'failed');
      }, 'all jobs finished');

      const metrics = await admin.getMetrics({ windowMinutes: 5 });
      expect(metrics).toMatchObject({ windowMinutes: 5, sampled: false });
      expect(metrics.generatedAt).toBeInstanceOf(Date);
      expect(Object.keys(metrics.queues).sort()).toEqual(['side', 'work']);
      const work = metrics.queues.work;
      expect(work).toMatchObject({
        queue: 'work',
        completed: 8,
        failed: 2,
        completedPerMinute: [0, 0, 0, 0, 8],
        failedPerMinute: [0, 0, 0, 0, 2],
      });
      expect(metrics.queues.side).toMatchObject({ completed: 1, failed: 0, completedPerMinute: [0, 0, 0, 0, 1] });

      for (const timing of [work.waitTime!, work.runTime!]) {
        expect(timing.count).toBe(10);
        expect(timing.p50).toBeGreaterThanOrEqual(0);
        expect(timing.p50).toBeLessThanOrEqual(timing.p90);
        expect(timing.p90).toBeLessThanOrEqual(timing.p95);
        expect(timing.p95).toBeLessThanOrEqual(timing.p99);
        expect(timing.p99).toBeLessThanOrEqual(timing.max);
      }
      expect(work.waitTime!.max).toBeGreaterThanOrEqual(300);
      expect(work.runTime!.max).toBeGreaterThanOrEqual(300);
      // Nearest-rank over what the rows say (due → start, start → finish of the last attempt): deterministic on a
      // loaded machine, where even the fast jobs may wait longer than the one that was held back.
      const infos = await Promise.all(jobs.filter((job) => job.queue === 'work').map(async (job) => (await admin.getJob(job.id))!));
      const rank50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1];
      expect(work.waitTime!.p50).toBe(rank50(infos.map((info) => info.startedAt!.getTime() - info.runAt.getTime())));
      expect(work.runTime!.p50).toBe(rank50(infos.map((info) => info.finishedAt!.getTime() - info.startedAt!.getTime())));

      const defaults = await admin.getMetrics();
      expect(defaults.windowMinutes).toBe(15);
      expect(defaults.queues.work.completedPerMinute).toHaveLength(15);
      expect(defaults.queues.work.completedPerMinute[14]).toBe(8);
    });
  });
});
