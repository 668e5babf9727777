import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SqliteQueueModule } from '../lib';
import { QueueDashboardModule } from '../lib/dashboard';

/**
 * The dashboard is a controller: an application made with `createApplicationContext` (the getting-started example,
 * a worker) has no HTTP server and serves it nowhere. Such an app booted in silence, and a newcomer who added the
 * dashboard to it found nothing at /queues and no word of why.
 */
describe('QueueDashboardModule in an application without an HTTP server', () => {
  @Module({
    imports: [
      SqliteQueueModule.forRoot({ database: ':memory:', shutdownTimeout: 200 }),
      QueueDashboardModule.forRoot({ path: 'ops/queues' }),
    ],
  })
  class AppModule {}

  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warn.mockRestore());

  const dashboardWarnings = (): string[] =>
    warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('QueueDashboardModule'));

  it('warns at boot that the dashboard is not served, and how to serve it', async () => {
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      expect(dashboardWarnings()).toEqual([expect.stringContaining('/ops/queues')]);
      expect(dashboardWarnings()[0]).toContain('NestFactory.create(AppModule)');
    } finally {
      await app.close();
    }
  });

  it('says nothing in an HTTP application', async () => {
    const app = await NestFactory.create(AppModule, { logger: false });
    try {
      await app.init();
      expect(dashboardWarnings()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
