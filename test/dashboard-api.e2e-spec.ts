/**
 * The dashboard's JSON API on every backend (no browser): what `redact` keeps back (progress and
 * keys leaked past a data rule), and what it answers for a queue nobody ever declared (a mistyped
 * `#/queue/nope` showed a normal page, and pausing it created the queue).
 */
import { connect } from 'node:http2';
import { Logger, Module } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Job, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { QueueDashboardModule } from '../lib/dashboard';
import { DashboardApp, startDashboardApp } from './fixtures/dashboard-app';
import { defineProcessor } from './fixtures/define-processor';
import { TestDatabase, describeEachBackend } from './support/backends';
import { waitFor } from './support/wait-for';

const SECRET = 'alice@example.com';

/** A queue whose handler reports progress carrying its data, as handlers do. */
const Report = defineProcessor<{ email: string }>('report', async (job: Job<{ email: string }>) => {
  await job.updateProgress({ step: 'sent', to: job.data.email });
  return { ok: true };
});
@Module({ providers: [Report] })
class ReportModule {}

/** One HTTP/2 GET with prior knowledge (h2c), naming the host in `:authority` alone, as HTTP/2 clients do. */
function http2Get(origin: string, path: string, authority: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = connect(origin);
    session.on('error', reject);
    const request = session.request({ ':path': path, ':authority': authority });
    let status = 0;
    request.on('response', (headers) => (status = Number(headers[':status'])));
    request.on('error', reject);
    request.resume();
    request.on('end', () => {
      session.close();
      resolve(status);
    });
    request.end();
  });
}

interface ListedJob {
  id: string;
  name: string | null;
  key: string | null;
  progress: unknown;
  hidden: string[];
}

describeEachBackend('dashboard API', (backend) => {
  let db: TestDatabase;
  let running: DashboardApp | undefined;
  beforeEach(async () => (db = await backend.migratedDatabase()));
  afterEach(async () => {
    await running?.app.close();
    running = undefined;
    db.cleanup();
  });

  const get = async (path: string) => {
    const response = await fetch(`${running!.url}/queues/api/${path}`);
    return { status: response.status, text: await response.text() };
  };
  const post = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${running!.url}/queues/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: running!.url },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { message: string } };
  };

  async function finishedReportJob(): Promise<string> {
    const job = await running!.app.get(QueueProducer).add('report', { email: SECRET }, { key: `invoice-${SECRET}`, name: 'receipt' });
    const admin = running!.app.get(QueueAdmin);
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the report job completed');
    return job.id;
  }

  it('redact.data also hides progress and key, in the job page and in lists; the job name stays', async () => {
    running = await startDashboardApp(db, 'express', { redact: { data: true } }, [ReportModule]);
    const id = await finishedReportJob();

    const page = await get(`jobs/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(SECRET);
    const shown = JSON.parse(page.text) as { hidden: string[]; job: ListedJob };
    expect(shown.hidden.sort()).toEqual(['data', 'key', 'progress']);
    expect(shown.job).toMatchObject({ name: 'receipt', key: null, progress: null, result: { ok: true } });

    for (const path of [
      'queues/report',
      'queues/report?status=completed',
      `queues/report?search=${encodeURIComponent(`invoice-${SECRET}`)}`,
    ]) {
      const list = await get(path);
      expect(list.status).toBe(200);
      const jobs = (JSON.parse(list.text) as { jobs: ListedJob[] }).jobs;
      expect(jobs.map((job) => job.id)).toEqual([id]);
      // The search term comes back as typed; no job field carries the secret.
      expect(JSON.stringify(jobs)).not.toContain(SECRET);
      expect(jobs[0]).toMatchObject({ name: 'receipt', key: null, progress: null, hidden: ['progress', 'key'] });
    }
  });

  it('progress and key take rules of their own: false shows as stored, a function rewrites', async () => {
    running = await startDashboardApp(
      db,
      'express',
      { redact: { data: true, key: false, progress: (value) => ({ ...(value as object), to: '***' }) } },
      [ReportModule],
    );
    const id = await finishedReportJob();
    const shown = JSON.parse((await get(`jobs/${id}`)).text) as { hidden: string[]; job: ListedJob };
    expect(shown.hidden).toEqual(['data']);
    expect(shown.job).toMatchObject({ key: `invoice-${SECRET}`, progress: { step: 'sent', to: '***' } });
    const [listed] = (JSON.parse((await get('queues/report')).text) as { jobs: ListedJob[] }).jobs;
    expect(listed).toMatchObject({ key: `invoice-${SECRET}`, progress: { step: 'sent', to: '***' }, hidden: [] });
  });

  it('a rule that throws hides the value it was given, in the job page and in lists, and the log names the job', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      running = await startDashboardApp(
        db,
        'express',
        {
          redact: {
            key: () => {
              throw new Error('the rule broke');
            },
          },
        },
        [ReportModule],
      );
      const id = await finishedReportJob();
      const shown = JSON.parse((await get(`jobs/${id}`)).text) as { hidden: string[]; job: ListedJob };
      expect(shown.hidden).toEqual(['key']);
      expect(shown.job.key).toBeNull();
      const [listed] = (JSON.parse((await get('queues/report')).text) as { jobs: ListedJob[] }).jobs;
      expect(listed).toMatchObject({ id, key: null, hidden: ['key'] });
      expect(errors).toHaveBeenCalledWith(expect.stringContaining(`redact.key threw for job ${id} of queue report`));
    } finally {
      errors.mockRestore();
    }
  });

  it('answers an HTTP/2 request, which names its host in :authority alone (Fastify with http2), and refuses another name', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...db.options, processing: false }), QueueDashboardModule.forRoot({ path: '/queues' })],
    }).compile();
    const app = moduleRef.createNestApplication(new FastifyAdapter({ http2: true }));
    app.useLogger(['fatal']);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    running = { app, url: `http://127.0.0.1:${port}`, behaviour: { failing: false } };
    expect(await http2Get(running.url, '/queues/api/overview', `localhost:${port}`)).toBe(200);
    expect(await http2Get(running.url, '/queues/api/overview', `evil.example:${port}`)).toBe(421);
  });

  it('a queue nothing knows: its page answers 404 and every action on it is refused (404), creating nothing', async () => {
    running = await startDashboardApp(db, 'express');
    const page = await get('queues/nope');
    expect(page.status).toBe(404);
    expect((JSON.parse(page.text) as { message: string }).message).toContain('No queue "nope"');
    for (const action of ['pause', 'resume', 'retry-failed']) {
      const answer = await post(`queues/nope/${action}`);
      expect(answer.status).toBe(404);
      expect(answer.body.message).toContain('no queue "nope" is known');
    }
    const clean = await post('queues/nope/clean', { statuses: ['completed'], olderThanMinutes: 0 });
    expect(clean.status).toBe(404);
    const overview = JSON.parse((await get('overview')).text) as { queues: { name: string }[] };
    expect(overview.queues.map((queue) => queue.name)).toEqual(['mail', 'other']);
    // A known queue with no job yet still has its page, and can be paused before its first job.
    expect((await get('queues/other')).status).toBe(200);
    expect((await post('queues/other/pause')).status).toBe(200);
  });

  it('bulk retry reports a debounced job whose key another job holds as refused, and retries the rest', async () => {
    running = await startDashboardApp(db, 'express');
    const producer = running.app.get(QueueProducer);
    const admin = running.app.get(QueueAdmin);
    // A queue no processor serves: its jobs stay where the test puts them.
    const debounced = await producer.add('unserved', { n: 1 }, { key: 'digest', debounce: true });
    const plain = await producer.add('unserved', { n: 2 });
    await admin.cancel(debounced.id);
    await admin.cancel(plain.id);
    const holder = await producer.add('unserved', { n: 3 }, { key: 'digest', debounce: true });

    const answer = await post('bulk/retry', { ids: [debounced.id, plain.id] });
    expect(answer.status).toBe(200);
    const body = answer.body as unknown as { done: string[]; refused: { id: string; reason: string }[] };
    expect(body.done).toEqual([plain.id]);
    expect(body.refused).toEqual([{ id: debounced.id, reason: expect.stringContaining(`job ${holder.id} (pending) holds this key`) }]);
    expect(await admin.getJob(plain.id)).toMatchObject({ status: 'pending' });
    expect(await admin.getJob(debounced.id)).toMatchObject({ status: 'cancelled' });
  });

  it("a queue's page in another order: getJobs' order, whether it is exact, and an unknown order refused", async () => {
    running = await startDashboardApp(db, 'express');
    const producer = running.app.get(QueueProducer);
    const jobs = await producer.addBulk(
      'other',
      [3, 1, 2].map((n) => ({ data: { n }, options: { name: `n${n}`, delay: 3_600_000 } })),
    );
    type Page = { jobs: { id: string }[]; sort: { by: string; order: string; exact: boolean } | null };
    const page = async (query: string) => JSON.parse((await get(`queues/other?${query}`)).text) as Page;
    const byName = await page('status=pending&sort=name&order=asc');
    expect(byName.jobs.map((job) => job.id)).toEqual([jobs[1].id, jobs[2].id, jobs[0].id]);
    // Pending jobs by name: no index serves it, sorted among the newest 100,000 jobs; by id an index does.
    expect(byName.sort).toEqual({ by: 'name', order: 'asc', exact: false });
    expect((await page('sort=id&order=asc')).sort).toEqual({ by: 'id', order: 'asc', exact: true });
    expect((await page('')).sort).toBeNull();
    for (const query of ['sort=nmae', 'sort=name&order=up']) {
      const refused = await get(`queues/other?${query}`);
      expect(refused.status).toBe(400);
      expect((JSON.parse(refused.text) as { message: string }).message).toMatch(/^Unknown (sort|order)/);
    }
  });

  it("a window order's pages: one row read past the page says whether more follow; the total only on the last page", async () => {
    running = await startDashboardApp(db, 'express');
    // 26 pending jobs, a page and one: 25 named "a" (a page exactly) and one "b". By name among pending jobs no index
    // serves the order, so it is sorted among the newest 100,000 jobs and the pending count is not its total.
    await running.app.get(QueueProducer).addBulk(
      'other',
      Array.from({ length: 26 }, (_, i) => ({ data: { i }, options: { name: i === 25 ? 'b' : 'a', delay: 3_600_000 } })),
    );
    type Page = { jobs: unknown[]; total: number | null; more: boolean; offset: number; limit: number };
    const page = async (query: string) => {
      const { jobs, total, more, offset, limit } = JSON.parse((await get(`queues/other?status=pending&${query}`)).text) as Page;
      return { shown: jobs.length, total, more, offset, limit };
    };
    const byName = 'sort=name&order=asc';
    expect(await page(byName)).toEqual({ shown: 25, total: null, more: true, offset: 0, limit: 25 });
    expect(await page(`${byName}&offset=25`)).toEqual({ shown: 1, total: 26, more: false, offset: 25, limit: 25 });
    // A page exactly full is the last when the read finds no row past it.
    expect(await page(`${byName}&name=a`)).toEqual({ shown: 25, total: 25, more: false, offset: 0, limit: 25 });
    // Past the last page nothing says how many there were.
    expect(await page(`${byName}&offset=50`)).toEqual({ shown: 0, total: null, more: false, offset: 50, limit: 25 });
    // The default order and an exact one keep the status count.
    expect(await page('')).toEqual({ shown: 25, total: 26, more: true, offset: 0, limit: 25 });
    expect(await page('sort=id&order=asc&offset=25')).toEqual({ shown: 1, total: 26, more: false, offset: 25, limit: 25 });
  });

  it('without redact, progress and key are shown as stored', async () => {
    running = await startDashboardApp(db, 'express', {}, [ReportModule]);
    const id = await finishedReportJob();
    const shown = JSON.parse((await get(`jobs/${id}`)).text) as { hidden: string[]; job: ListedJob };
    expect(shown.hidden).toEqual([]);
    expect(shown.job).toMatchObject({ key: `invoice-${SECRET}`, progress: { step: 'sent', to: SECRET } });
  });

  it('refuses every action sent with Sec-Fetch-Site same-site or cross-site and no Origin, changing nothing; same-origin alone passes', async () => {
    running = await startDashboardApp(db, 'express');
    const producer = running.app.get(QueueProducer);
    const admin = running.app.get(QueueAdmin);
    // Work that stays where it is unless an action moves it: a delayed job and a schedule of a queue nobody runs.
    const job = await producer.add('idle', { n: 1 }, { delay: 3_600_000 });
    await producer.upsertSchedule('idle', 'hourly', { every: 3_600_000 });
    const routes: [string, unknown][] = [
      ['queues/idle/pause', {}],
      ['queues/idle/clean', { status: ['pending'], olderThan: 0 }],
      [`jobs/${job.id}/cancel`, {}],
      [`jobs/${job.id}/promote`, {}],
      ['bulk/remove', { ids: [job.id] }],
      ['schedules/idle/hourly/run', {}],
      ['schedules/idle/hourly/pause', {}],
    ];
    // A JSON body and the dashboard's own Host: only Sec-Fetch-Site tells where the request comes from.
    const send = async (path: string, body: unknown, site: string) => {
      const response = await fetch(`${running!.url}/queues/api/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'sec-fetch-site': site },
        body: JSON.stringify(body),
      });
      return { status: response.status, message: ((await response.json()) as { message: string }).message };
    };
    for (const site of ['same-site', 'cross-site']) {
      for (const [path, body] of routes) {
        expect({ path, site, ...(await send(path, body, site)) }).toEqual({
          path,
          site,
          status: 403,
          message: `Action refused: it comes from another site (Sec-Fetch-Site: ${site}).`,
        });
      }
    }
    expect(await admin.getJob(job.id)).toMatchObject({ status: 'pending', runAt: expect.any(Date) });
    expect((await admin.getJob(job.id))!.runAt.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(await admin.getCounts('idle')).toMatchObject({ pending: 1, cancelled: 0 });
    expect((await admin.listQueues()).find((queue) => queue.name === 'idle')?.paused ?? false).toBe(false);
    expect((await producer.listSchedules()).map((schedule) => schedule.paused)).toEqual([false]);

    // The same requests from the dashboard's own page (same-origin, no Origin header as some fetches send none) pass.
    expect(await send('queues/idle/pause', {}, 'same-origin')).toMatchObject({ status: 200 });
    expect((await admin.listQueues()).find((queue) => queue.name === 'idle')?.paused).toBe(true);
  });

  it("refuses an action whose Origin is another port of the dashboard's host (another app there), sent with no Sec-Fetch-Site", async () => {
    running = await startDashboardApp(db, 'express');
    const own = new URL(running.url);
    const otherPort = `${own.protocol}//${own.hostname}:${Number(own.port) === 65535 ? 65534 : Number(own.port) + 1}`;
    // A browser that sends no Sec-Fetch-Site (older ones) still sends Origin: it alone decides.
    const send = async (origin: string) => {
      const response = await fetch(`${running!.url}/queues/api/queues/idle/pause`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: '{}',
      });
      return { status: response.status, message: ((await response.json()) as { message: string }).message };
    };
    await running.app.get(QueueProducer).add('idle', { n: 1 });
    expect(await send(otherPort)).toEqual({ status: 403, message: `Action refused: it comes from another origin (${otherPort}).` });
    expect((await running.app.get(QueueAdmin).listQueues()).find((queue) => queue.name === 'idle')?.paused).toBe(false);
    expect(await send(running.url)).toMatchObject({ status: 200 });
  });

  it('authorize lets a request in only when it returns true: one that returns nothing, or a truthy value, is refused', async () => {
    const answers: unknown[] = [undefined, 'yes', 1, { user: 'ops' }];
    let answer: unknown;
    running = await startDashboardApp(db, 'express', { authorize: (async () => answer) as never });
    for (answer of answers) {
      expect({ answer, status: (await fetch(`${running.url}/queues/api/overview`)).status }).toEqual({ answer, status: 403 });
    }
    answer = true;
    expect((await fetch(`${running.url}/queues/api/overview`)).status).toBe(200);
  });

  it("a job's explain answers group-rate-limited, with until when, while its group's window is used up", async () => {
    const Tenants = defineProcessor('tenants', async () => undefined, { groupLimiter: { max: 1, duration: 60_000 } });
    @Module({ providers: [Tenants] })
    class TenantsModule {}
    running = await startDashboardApp(db, 'express', {}, [TenantsModule]);
    const producer = running.app.get(QueueProducer);
    const first = await producer.add('tenants', {}, { group: 't-1' });
    const second = await producer.add('tenants', {}, { group: 't-1' });
    await running.app.get(QueueAdmin).waitUntilFinished(first.id, { timeout: 5000 });
    const page = await get(`jobs/${second.id}/explain`);
    expect(page.status).toBe(200);
    const why = JSON.parse(page.text) as { reason: string; until?: string; detail: string };
    expect(why.reason).toBe('group-rate-limited');
    expect(Date.parse(why.until!)).toBeGreaterThan(Date.now());
    expect(why.detail).toContain('t-1');
  });
});
