/**
 * The e2e test users write, as docs/testing.md shows it: the application's own AppModule (HTTP controller, processor,
 * `forRootAsync` reading the database path from configuration), a temporary database per test file through
 * `overrideProvider(ConfigService)`, the mailer overridden too, requests over HTTP. With a fixed path in `forRoot`,
 * every test file importing AppModule would share one database file, and jest runs files side by side.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { QueueAdmin, QueueProducer } from '../lib';
import { AppModule, ConfigService, Mailer, WELCOME_QUEUE } from './fixtures/signup-app.module';
import { describeEachSqlite } from './support/backends';
import { jobCounts } from './support/job-counts';

describeEachSqlite('the AppModule recipe of docs/testing.md', (backend) => {
  let dir: string;
  let app: INestApplication;
  const sent: string[] = [];
  const fakeMailer = { send: async (to: string) => void sent.push(to) };

  /** The application on `database`: what a test file's beforeAll does. */
  async function startApp(database: string): Promise<INestApplication> {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(ConfigService)
      .useValue(new ConfigService({ QUEUE_DATABASE: database, QUEUE_DRIVER: backend.driver }))
      .overrideProvider(Mailer)
      .useValue(fakeMailer)
      .compile();
    const started = moduleRef.createNestApplication({ logger: false });
    await started.listen(0, '127.0.0.1');
    return started;
  }

  beforeAll(async () => {
    // This file's own database: test files running side by side never see each other's jobs.
    dir = mkdtempSync(join(tmpdir(), 'queue-recipe-'));
    app = await startApp(join(dir, 'queue.sqlite'));
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('POST /signups enqueues the welcome e-mail, which runs through the overridden Mailer, on the temporary database', async () => {
    const response = await fetch(`${await app.getUrl()}/signups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(response.status).toBe(201);
    const { jobId } = (await response.json()) as { jobId: string };
    const info = await app.get(QueueAdmin).waitUntilFinished(jobId, { timeout: 4_000 });
    expect(info).toMatchObject({ status: 'completed', result: { sent: true }, data: { to: 'ada@example.com' } });
    expect(sent).toContain('ada@example.com');
    expect(existsSync(join(dir, 'queue.sqlite'))).toBe(true);
    expect(existsSync(join(process.cwd(), 'data', 'queue.sqlite'))).toBe(false);
  });

  it('the same AppModule on another database sees none of these jobs: what keeps test files apart', async () => {
    const job = await app.get(QueueProducer).add(WELCOME_QUEUE, { to: 'bob@example.com' });
    await job.waitUntilFinished({ timeout: 4_000 });
    const other = await startApp(join(dir, 'other.sqlite'));
    try {
      expect(await other.get(QueueAdmin).getCounts()).toEqual(jobCounts());
      expect((await app.get(QueueAdmin).getCounts(WELCOME_QUEUE)).completed).toBeGreaterThanOrEqual(1);
    } finally {
      await other.close();
    }
  });
});
