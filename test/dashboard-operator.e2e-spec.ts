/**
 * The dashboard an operator does not outgrow, in a real headless Chromium against running apps
 * on SQLite and PostgreSQL: job logs and the flow tree, attempts' errors as history, the job-name filter, sorting,
 * selection with bulk actions, "run now", re-run, the schedules' controls, the processes page, the layout at 1280 px,
 * the charts' colours and axes, the dark theme, hashed and compressed assets, and an action's effect shown at once
 * (polling set to a minute, so nothing but the action's own read can show it). Screenshots of docs/images come from
 * the better-sqlite3 run.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { INestApplicationContext, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Job, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { DashboardApp, startDashboardApp } from './fixtures/dashboard-app';
import { defineProcessor } from './fixtures/define-processor';
import { Backend, TestDatabase, describeEachBackend } from './support/backends';
import { useBrowser } from './support/browser';
import { waitFor } from './support/wait-for';
import { rawSql } from './fixtures/legacy-schema';

const IMAGES = join(__dirname, '..', 'docs', 'images');
const LONG_NAME = 'monthly-invoice-reconciliation-for-enterprise-customers-with-a-very-long-name';

/** What the `report` handler does: log two lines, fail its first attempt, complete the second; `hold` keeps it running. */
const report = { hold: null as Promise<void> | null, started: 0 };
const Report = defineProcessor<{ n: number }>(
  'report',
  async (job: Job<{ n: number }>) => {
    report.started++;
    await job.log(`starting report ${job.data.n} <b>bold?</b>`);
    if (report.hold) await report.hold;
    if (job.attempt === 1 && job.data.n >= 0) throw new Error(`upstream timed out on attempt ${job.attempt}`);
    await job.log('report written');
    return { rows: job.data.n };
  },
  { maxAttempts: 2, backoff: { type: 'fixed', delay: 1 } },
);
@Module({ providers: [Report] })
class ReportModule {}

/** A rate-limited processor in another app on the same database: its limiters are stored for every process. */
const Limited = defineProcessor('limited', async () => undefined, {
  limiter: { max: 1, duration: 60_000 },
  groupLimiter: { max: 2, duration: 500 },
  groupConcurrency: 1,
});
@Module({ providers: [Limited] })
class LimitedModule {}

/** A processor for `remote` in another app on the same database: the dashboard's app does not process it. */
const Remote = defineProcessor('remote', async () => 'done elsewhere');
@Module({ providers: [Remote] })
class RemoteModule {}

const browser = useBrowser();
const { openPage } = browser;

/** A GET on a connection of its own with these headers: status, headers and the raw body bytes. */
function getRaw(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} got no answer in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

function screenshots(backend: Backend): boolean {
  return backend.name === 'better-sqlite3';
}

describeEachBackend(
  'dashboard for operators',
  (backend) => {
    let db: TestDatabase;
    let running: DashboardApp;
    let admin: QueueAdmin;
    let producer: QueueProducer;
    let remote: INestApplicationContext | undefined;

    beforeEach(async () => {
      report.hold = null;
      report.started = 0;
      db = await backend.migratedDatabase();
      // Polls a minute apart: whatever the page shows right after an action, its own read showed (item 15).
      running = await startDashboardApp(db, 'express', { refreshInterval: 60_000 }, [ReportModule]);
      admin = running.app.get(QueueAdmin);
      producer = running.app.get(QueueProducer);
    });
    afterEach(async () => {
      await remote?.close();
      remote = undefined;
      await running?.app.close();
      db?.cleanup();
    });

    it('job page: logs, a flow as a linked tree, earlier errors as history, re-run, run now, and a removal shown at once', async () => {
      const parent = await producer.addFlow({
        queue: 'other',
        data: { step: 'parent' },
        children: [
          { queue: 'report', data: { n: 1 } },
          { queue: 'mail', data: { n: 2 } },
        ],
      });
      await waitFor(async () => (await admin.getJob(parent.id))?.status === 'completed', 'the flow completed');
      const [reportChild] = await admin.getJobs('report', { status: 'completed' });

      // A completed job whose first attempt failed: its error is history, and its log is shown (as text).
      const page = await openPage(`${running.url}/queues#/job/${reportChild.id}`);
      await page.locator('[data-panel="logs"] ol.logs li').first().waitFor();
      expect(await page.locator('[data-panel="logs"] li').allInnerTexts()).toEqual([
        'starting report 1 <b>bold?</b>',
        'starting report 1 <b>bold?</b>',
        'report written',
      ]);
      expect(await page.locator('[data-panel="errors"] h2').innerText()).toBe('Earlier attempts');
      expect(await page.locator('[data-error-history]').innerText()).toContain('completed on attempt 2');
      expect(await page.getByRole('heading', { name: 'Error', exact: true }).count()).toBe(0);
      // The flow: the parent as a link with its status, this job under it.
      const tree = page.locator('[data-panel="flow"] ul.tree');
      await tree.locator(`li[data-flow-job="${parent.id}"] > a`).waitFor();
      expect(await tree.locator(`li[data-flow-job="${parent.id}"] > .badge`).first().innerText()).toBe('completed');
      await tree.locator(`li[data-flow-job="${parent.id}"] > a`).click();
      await page.locator(`[data-panel="flow"] li[data-flow-job="${reportChild.id}"] > a`).waitFor();
      expect(await page.locator('[data-panel="flow"] li[data-flow-job] > a').count()).toBe(2);
      // The list of the report queue shows no "last error" for the completed job.
      await page.goto(`${running.url}/queues#/queue/report`);
      await page.locator(`tr[data-job="${reportChild.id}"]`).waitFor();
      expect(await page.locator(`tr[data-job="${reportChild.id}"] td[data-label="Error"]`).innerText()).toBe('');

      // An ordinary job: no flow block at all. Run again: a new job with the same data and name, its page shown.
      const plain = await producer.add('mail', { n: 7 }, { name: LONG_NAME });
      await waitFor(async () => (await admin.getJob(plain.id))?.status === 'completed', 'plain job done');
      await page.goto(`${running.url}/queues#/job/${plain.id}`);
      await page.locator('[data-panel="fields"]').waitFor();
      expect(await page.locator('[data-panel="flow"]').count()).toBe(0);
      expect(await page.getByText('flow', { exact: true }).count()).toBe(0);
      expect(await page.locator('#job-panels').count()).toBe(1);
      await page.getByRole('button', { name: 'Run again as a new job' }).click();
      await page.getByRole('status').getByText(`with the data of job ${plain.id}`).waitFor();
      await page.waitForURL((url) => url.hash.startsWith('#/job/') && url.hash !== `#/job/${plain.id}`);
      const copyId = decodeURIComponent(new URL(page.url()).hash.slice('#/job/'.length));
      const copy = await admin.getJob(copyId);
      expect(copy).toMatchObject({ queue: 'mail', name: LONG_NAME, data: { n: 7 } });
      expect((await admin.getJob(plain.id))?.status).toBe('completed');

      // Run now: a job delayed by an hour becomes due and runs.
      const delayed = await producer.add('mail', { n: 8 }, { delay: 3_600_000 });
      await page.goto(`${running.url}/queues#/job/${delayed.id}`);
      if (screenshots(backend)) await page.screenshot({ path: join(IMAGES, 'dashboard-job-delayed.png'), fullPage: true });
      await page.getByRole('button', { name: 'Run now' }).click();
      await page.getByRole('status').getByText(`Job ${delayed.id} is due now`).waitFor();
      await waitFor(async () => (await admin.getJob(delayed.id))?.status === 'completed', 'promoted job done');

      // Remove: the page says at once that the job is gone (the next poll is a minute away).
      await page.goto(`${running.url}/queues#/job/${copyId}`);
      await waitFor(async () => (await admin.getJob(copyId))?.status === 'completed', 'copy done');
      await page.reload();
      await page.getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('heading', { name: `Job ${copyId} no longer exists` }).waitFor({ timeout: 5000 });
      expect(await admin.getJob(copyId)).toBeNull();
      // An id that never named a job (an old link, a typo) is not found: nothing was removed.
      await page.goto(`${running.url}/queues#/job/987654321`);
      await page.getByRole('heading', { name: 'Job 987654321 not found' }).waitFor({ timeout: 5000 });
      await page.goto(`${running.url}/queues#/job/not-an-id`);
      await page.getByRole('heading', { name: 'Job not-an-id not found' }).waitFor({ timeout: 5000 });
      await page.close();
    });

    it('job page: the dependencies graph both ways, each job a link with its status, a removed one without a link', async () => {
      const gone = await producer.add('graph-b', { n: 0 });
      const [first, second] = await producer.addGraph([
        { ref: 'first', queue: 'graph-a', data: { step: 1 }, options: { name: 'fetch' } },
        { ref: 'second', queue: 'graph-b', data: { step: 2 }, options: { dependsOn: [{ ref: 'first' }, gone.id] } },
      ]);
      await admin.remove(gone.id);
      const page = await openPage(`${running.url}/queues#/job/${second.id}`);
      const waits = page.locator('[data-panel="dependencies"] [data-links="dependencies"]');
      await waits.locator(`li[data-linked-job="${first.id}"] > a`).waitFor();
      expect(await waits.locator('h3').innerText()).toBe('Waits for (2)');
      expect(await waits.locator(`li[data-linked-job="${first.id}"] > .badge`).innerText()).toBe('pending');
      expect(await waits.locator(`li[data-linked-job="${first.id}"]`).innerText()).toContain('graph-a · fetch');
      expect(await waits.locator(`li[data-linked-job="${gone.id}"] > a`).count()).toBe(0);
      expect(await waits.locator(`li[data-linked-job="${gone.id}"] > .badge`).innerText()).toBe('removed');
      expect(await page.locator('[data-panel="dependencies"] [data-links="dependents"]').count()).toBe(0);
      // Its dependency's page shows it the other way round.
      await waits.locator(`li[data-linked-job="${first.id}"] > a`).click();
      const needed = page.locator('[data-panel="dependencies"] [data-links="dependents"]');
      await needed.locator(`li[data-linked-job="${second.id}"] > a`).waitFor();
      expect(await needed.locator('h3').innerText()).toBe('Needed by (1)');
      expect(await page.locator('[data-panel="dependencies"] [data-links="dependencies"]').count()).toBe(0);
      // A job outside any graph has no dependencies block.
      const plain = await producer.add('graph-a', { step: 3 });
      await page.goto(`${running.url}/queues#/job/${plain.id}`);
      await page.locator('h1', { hasText: `Job ${plain.id}` }).waitFor();
      expect(await page.locator('[data-panel="dependencies"]').count()).toBe(0);
    });

    it("queue page: the queue's limits in one line, read from the database, with when a used-up window opens", async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [SqliteQueueModule.forRoot({ ...db.options, pollInterval: 50, workerId: 'limited-worker' }), LimitedModule],
      }).compile();
      remote = await moduleRef.createNestApplication({ logger: ['fatal'] }).init();
      await producer.addBulk('limited', [{ data: 1 }, { data: 2 }]);
      await waitFor(async () => (await admin.getCounts('limited')).completed === 1, 'the window of one used up');
      const page = await openPage(`${running.url}/queues#/queue/limited`);
      const line = page.locator('[data-limits]');
      await line.filter({ hasText: 'rate 1 per' }).waitFor();
      const text = await line.innerText();
      expect(text).toContain('rate 1 per 1.0 min');
      expect(text).toContain('per group 2 per 500 ms');
      expect(text).toMatch(/rate-limited, opens in (\d+ s|1 min)$/);
      // groupConcurrency is the other app's processor option: this application sets none, so the line has none.
      expect(text).not.toContain('group concurrency');
      // A queue without limits shows no line.
      await page.goto(`${running.url}/queues#/queue/report`);
      await page.locator('h1', { hasText: 'Queue report' }).waitFor();
      expect(await page.locator('[data-limits]').isVisible()).toBe(false);
    });

    it('queue page: name filter, sortable columns, bulk retry / cancel / remove shown at once, and 1280 px with long names', async () => {
      running.behaviour.failing = true;
      const failed = await producer.addBulk('mail', [
        { data: { fail: true }, options: { name: LONG_NAME } },
        { data: { fail: true }, options: { name: LONG_NAME } },
        { data: { fail: true }, options: { name: 'receipt' } },
      ]);
      const delayed = await producer.addBulk('mail', [
        { data: { n: 1 }, options: { name: 'receipt', delay: 3_600_000 } },
        { data: { n: 2 }, options: { name: 'receipt', delay: 3_600_000 } },
      ]);
      await waitFor(async () => (await admin.getCounts('mail')).failed === 3, 'three failed');
      const page = await openPage(`${running.url}/queues#/queue/mail`);
      await page.locator(`tr[data-job="${failed[0].id}"]`).waitFor();

      // Fits 1280 px: the table is no wider than its box, and Finished and Error are on screen.
      const widths = (await page.evaluate(`(() => {
        const wrap = document.querySelector('#queue-jobs .table-wrap');
        return { wrap: wrap.clientWidth, table: wrap.querySelector('table').scrollWidth, viewport: window.innerWidth };
      })()`)) as { wrap: number; table: number; viewport: number };
      expect(widths.viewport).toBe(1280);
      expect(widths.table).toBeLessThanOrEqual(widths.wrap);
      for (const label of ['Finished', 'Error']) {
        const box = await page.locator(`tr[data-job="${failed[0].id}"] td[data-label="${label}"]`).boundingBox();
        expect(box && box.x + box.width).toBeLessThanOrEqual(1280);
      }
      if (screenshots(backend)) await page.screenshot({ path: join(IMAGES, 'dashboard-queue-long-names.png'), fullPage: true });

      // Filter by job name: that name's jobs and counts only.
      await page.getByLabel('Job name', { exact: true }).fill('receipt');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('link', { name: /^All \(3\)$/ }).waitFor();
      expect((await page.locator('tr[data-job]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-job')))).sort()).toEqual(
        [failed[2].id, ...delayed.map((job) => job.id)].sort(),
      );
      await page.getByRole('link', { name: /^failed \(1\)$/ }).click();
      await page.locator(`tr[data-job="${failed[2].id}"]`).waitFor();
      // That job is a row of the list before the click too: wait for the failed tab's list to replace it.
      await waitFor(async () => (await page.locator('tr[data-job]').count()) === 1, 'the failed tab lists its 1 job only');
      await page.getByRole('link', { name: 'All names' }).click();
      await page.getByRole('link', { name: /^failed \(3\)$/ }).waitFor();
      await page.getByRole('link', { name: /^All \(5\)$/ }).click();
      await page.locator(`tr[data-job="${delayed[0].id}"]`).waitFor();

      // Sort by id, ascending then descending (the list comes newest first): the server's order, exact.
      const ids = () => page.locator('tr[data-job]').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-job'))));
      await page.locator('a[data-sort="id"]').click();
      await page.locator('th[aria-sort="ascending"] a[data-sort="id"]').waitFor();
      const ascending = await ids();
      expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
      expect(await page.locator('th[aria-sort="ascending"]').count()).toBe(1);
      expect(await page.locator('[data-sort-line]').getAttribute('data-exact')).toBe('true');
      await page.locator('a[data-sort="id"]').click();
      await page.locator('th[aria-sort="descending"] a[data-sort="id"]').waitFor();
      expect(await ids()).toEqual([...ascending].reverse());

      // Select two failed jobs and retry them: their new state is on the page at once, no poll needed.
      running.behaviour.failing = false;
      await page.getByLabel(`Select job ${failed[0].id}`).check();
      await page.getByLabel(`Select job ${failed[1].id}`).check();
      expect(await page.locator('[data-selected]').innerText()).toBe('2 selected');
      await page.getByRole('button', { name: 'Retry selected' }).click();
      await page.getByRole('status').getByText('2 job(s) retried.').waitFor();
      await page.locator(`tr[data-job="${failed[0].id}"] .badge:not(.failed)`).waitFor({ timeout: 3000 });
      expect(await page.locator('[data-selected]').innerText()).toBe('0 selected');
      await waitFor(async () => (await admin.getCounts('mail')).completed === 2, 'both retried jobs completed');

      // Cancel the delayed ones, then remove them with a third job (one refused: the answer says why).
      for (const job of delayed) await page.getByLabel(`Select job ${job.id}`).check();
      await page.getByRole('button', { name: 'Cancel selected' }).click();
      await page.getByRole('status').getByText('2 job(s) cancelled.').waitFor();
      await page.locator(`tr[data-job="${delayed[0].id}"] .badge.cancelled`).waitFor({ timeout: 3000 });
      expect((await admin.getJob(delayed[1].id))?.status).toBe('cancelled');
      await page.getByLabel('Select all jobs of this page').check();
      expect(await page.locator('[data-selected]').innerText()).toBe('5 selected');
      await page.getByRole('button', { name: 'Remove selected' }).click();
      await page.getByRole('status').getByText('5 job(s) removed.').waitFor();
      // At once: the table is empty before any poll.
      await page.getByText('No job here.').waitFor({ timeout: 3000 });
      expect(await admin.getCounts('mail')).toMatchObject({ pending: 0, completed: 0, failed: 0, cancelled: 0 });
      await page.close();
    });

    it('pause, retry all failed, resume and clean show their effect at once (the next poll is a minute away)', async () => {
      await producer.addBulk('mail', [{ data: { fail: true } }, { data: { fail: true } }, { data: { n: 1 } }]);
      await waitFor(async () => {
        const counts = await admin.getCounts('mail');
        return counts.failed === 2 && counts.completed === 1;
      }, 'mail settled');
      const page = await openPage(`${running.url}/queues#/queue/mail`);
      await page.locator('h1 .badge.active').waitFor();
      await page.getByRole('link', { name: /^failed \(2\)$/ }).waitFor();

      await page.getByRole('button', { name: 'Pause queue' }).click();
      await page.locator('h1 .badge.paused').waitFor({ timeout: 3000 });
      await page.getByRole('button', { name: 'Resume queue' }).waitFor({ timeout: 3000 });
      expect((await admin.listQueues()).find((q) => q.name === 'mail')?.paused).toBe(true);

      // Retried while paused: both pending at once, and they stay so until the resume.
      running.behaviour.failing = false;
      await page.getByRole('button', { name: 'Retry all failed' }).click();
      await page.getByRole('status').getByText('2 failed job(s) of mail are pending again').waitFor();
      await page.getByRole('link', { name: /^pending \(2\)$/ }).waitFor({ timeout: 3000 });
      expect(await page.getByRole('link', { name: /^failed \(0\)$/ }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Retry all failed' }).isDisabled()).toBe(true);

      await page.getByRole('button', { name: 'Resume queue' }).click();
      await page.locator('h1 .badge.active').waitFor({ timeout: 3000 });
      await waitFor(async () => (await admin.getCounts('mail')).completed === 3, 'the retried jobs completed');

      // Clean every completed job (finished more than 0 minutes ago): the tab says none at once.
      await page.locator('#clean-minutes').fill('0');
      await page.getByRole('button', { name: 'Clean', exact: true }).click();
      await page.getByRole('status').getByText('Removed 3 completed job(s) of mail finished more than 0 minute(s) ago.').waitFor();
      await page.getByRole('link', { name: /^completed \(0\)$/ }).waitFor({ timeout: 3000 });
      await page.getByText('No job here.').waitFor({ timeout: 3000 });
      expect((await admin.getCounts('mail')).completed).toBe(0);
      // The same action again once the first was answered (pause, then resume, a second time): sent again. Only a click
      // while the same action is on its way is dropped.
      await page.getByRole('button', { name: 'Pause queue' }).click();
      await page.locator('h1 .badge.paused').waitFor({ timeout: 3000 });
      expect((await admin.listQueues()).find((q) => q.name === 'mail')?.paused).toBe(true);
      await page.getByRole('button', { name: 'Resume queue' }).click();
      await page.locator('h1 .badge.active').waitFor({ timeout: 3000 });
      expect((await admin.listQueues()).find((q) => q.name === 'mail')?.paused).toBe(false);
      await page.close();
    });

    it("drops a poll answer read before an action that arrives after it: the action's effect stays on screen", async () => {
      await producer.add('mail', { n: 1 });
      await waitFor(async () => (await admin.getCounts('mail')).completed === 1, 'mail settled');
      const page = await browser.context.newPage();
      // Each read the page has handled, in order: an answer's handlers run in microtasks after its text resolves,
      // before this timer fires, so a URL listed here has been applied or dropped.
      await page.addInitScript(`(() => {
        window.__handled = [];
        const text = Response.prototype.text;
        Response.prototype.text = function () {
          const url = this.url;
          return text.call(this).then((body) => {
            setTimeout(() => window.__handled.push(url), 0);
            return body;
          });
        };
      })()`);
      // The reads of the queue the page sent (one on arriving, one more as a new page becomes visible).
      let sent = 0;
      page.on('request', (request) => {
        if (request.url().includes('/api/queue?queue=mail&')) sent++;
      });
      await page.goto(`${running.url}/queues#/queue/mail`);
      await page.locator('h1 .badge.active').waitFor();
      const handled = () =>
        page.evaluate(`window.__handled.filter((url) => url.includes('/api/queue?queue=mail&')).length`) as Promise<number>;
      await waitFor(async () => sent > 0 && (await handled()) === sent, 'the first reads handled');

      // The next read of the queue is answered by the server now (queue active) and delivered to the page later.
      const queueRead = /\/api\/queue\?queue=mail&/;
      let deliver!: () => Promise<void>;
      const held = new Promise<void>((resolve) => {
        let first = true;
        void page.route(queueRead, async (route) => {
          // Only this one read is held: the ones after it go straight through.
          if (!first) return route.continue();
          first = false;
          const answer = await route.fetch();
          const body = await answer.text();
          expect(JSON.parse(body)).toMatchObject({ queue: { paused: false } });
          deliver = () => route.fulfill({ status: answer.status(), contentType: 'application/json; charset=utf-8', body });
          resolve();
        });
      });
      // A poll, as a tab coming back into view makes one.
      await page.evaluate(`document.dispatchEvent(new Event('visibilitychange'))`);
      await held;

      // The pause, and its own read, are shown; then the older answer (active) arrives, and is dropped.
      await page.getByRole('button', { name: 'Pause queue' }).click();
      await page.locator('h1 .badge.paused').waitFor({ timeout: 3000 });
      await waitFor(async () => (await handled()) === sent - 1, "every read but the held one handled, the pause's too");
      await deliver();
      await waitFor(async () => (await handled()) === sent, 'the older answer handled');
      expect(await page.locator('h1 .badge').first().innerText()).toBe('paused');
      expect(await page.getByRole('button', { name: 'Resume queue' }).count()).toBe(1);
      await page.close();
    });

    it('sorts by a column across the whole queue, on the server: the order survives polls and pages', async () => {
      // 30 delayed jobs, named so that the name order is the id order: newest first, job-00 is on the second page.
      const jobs = await producer.addBulk(
        'mail',
        Array.from({ length: 30 }, (_, i) => ({
          data: { n: i },
          options: { name: `job-${String(i).padStart(2, '0')}`, delay: 3_600_000 },
        })),
      );
      const page = await openPage(`${running.url}/queues#/queue/mail?status=pending`);
      await page.locator(`tr[data-job="${jobs[29].id}"]`).waitFor();
      expect(await page.locator(`tr[data-job="${jobs[0].id}"]`).count()).toBe(0);
      const names = () => page.locator('tr[data-job] td[data-label="Name"]').allInnerTexts();
      const pager = () => page.locator('[data-pager]').innerText();
      const next = page.getByRole('link', { name: 'Next →' });
      // Newest first, the pending count is the total.
      expect(await pager()).toBe('Jobs 1–25 of 30');

      await page.locator('a[data-sort="name"]').click();
      await page.locator('th[aria-sort="ascending"] a[data-sort="name"]').waitFor();
      const first = Array.from({ length: 25 }, (_, i) => `job-${String(i).padStart(2, '0')}`);
      expect(await names()).toEqual(first);
      // A poll reads the same order. Polls here are a minute apart: the refresh a tab coming back into view makes (the
      // poll's own path, main.browser.ts) stands for one.
      const sorted = (url: string) => url.includes('/api/queue?queue=mail&') && url.includes('sort=name') && url.includes('order=asc');
      const polled = page.waitForResponse((response) => sorted(response.url()));
      await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))");
      const answer = (await (await polled).json()) as { total: number | null; more: boolean; sort: { exact: boolean } };
      expect(await names()).toEqual(first);
      // Name among pending jobs has no index: sorted among the newest jobs only, so the pending count is not its
      // total. The answer has none before the last page, and says another page follows; so does the pager.
      expect(answer).toMatchObject({ total: null, more: true, sort: { exact: false } });
      expect(await pager()).toBe('Jobs 1–25 of more than 25 in this order');
      expect(await next.count()).toBe(1);
      if (screenshots(backend)) await page.screenshot({ path: join(IMAGES, 'dashboard-sorted.png'), fullPage: true });
      // The next page goes on in that order, and says so: the last, with the exact count and no Next.
      const last = page.waitForResponse((response) => sorted(response.url()) && response.url().includes('offset=25'));
      await next.click();
      await page.locator(`tr[data-job="${jobs[25].id}"]`).waitFor();
      expect(await names()).toEqual(['job-25', 'job-26', 'job-27', 'job-28', 'job-29']);
      expect(await (await last).json()).toMatchObject({ total: 30, more: false, offset: 25 });
      expect(await pager()).toBe('Jobs 26–30 of 30 in this order');
      expect(await next.count()).toBe(0);
      expect(await page.getByRole('link', { name: '← Previous' }).count()).toBe(1);
      // Created has no index among pending jobs: sorted among the database's newest 100,000, which the line says.
      await page.locator('a[data-sort="createdAt"]').click();
      await page.locator('th[aria-sort="ascending"] a[data-sort="createdAt"]').waitFor();
      expect(await page.locator('[data-sort-line]').getAttribute('data-exact')).toBe('false');
      expect(await page.locator('[data-sort-line]').innerText()).toContain('among the newest 100,000 jobs');
      expect(await page.locator('tr[data-job]').first().getAttribute('data-job')).toBe(jobs[0].id);
      // A tab keeps the order; "Newest first" drops it.
      await page.getByRole('link', { name: /^All \(/ }).click();
      await page.locator('th[aria-sort="ascending"] a[data-sort="createdAt"]').waitFor();
      await page.getByRole('link', { name: 'Newest first' }).click();
      await page.locator('th[aria-sort="none"] a[data-sort="createdAt"]').waitFor();
      expect(await page.locator('[data-sort-line]').count()).toBe(0);
      await page.close();
    });

    it("a double click on an action sends it once: the second click's refusal does not hide the first one's answer", async () => {
      const [job] = await producer.addBulk('mail', [{ data: { fail: true } }]);
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed');
      running.behaviour.failing = false;
      const page = await openPage(`${running.url}/queues#/job/${job.id}`);
      let posts = 0;
      page.on('request', (request) => {
        if (request.method() === 'POST' && request.url().includes('/api/job/retry')) posts++;
      });
      await page.getByRole('button', { name: 'Retry', exact: true }).dblclick();
      await page.getByRole('status').getByText(`Job ${job.id} is pending again`).waitFor();
      // The page's own read after the action has come back (a job no longer failed has no Retry): nothing else is on its way.
      await page.getByRole('button', { name: 'Retry', exact: true }).waitFor({ state: 'detached' });
      expect(posts).toBe(1);
      expect(await page.locator('#action-status.error').count()).toBe(0);
      await page.close();
    });

    it('a page past the end of the list (an old link, a typed offset) says where the list ends and links back to it', async () => {
      const jobs = await producer.addBulk(
        'mail',
        Array.from({ length: 3 }, (_, i) => ({ data: { n: i }, options: { name: 'past-end', delay: 3_600_000 } })),
      );
      const page = await openPage(`${running.url}/queues#/queue/mail?status=pending&name=past-end&offset=99999975`);
      const pager = page.locator('[data-pager]');
      await pager.waitFor();
      // Not "No job here": the tab counts 3 of them.
      expect(await pager.innerText()).toBe('No job at 99,999,976 or after: this list holds 3.');
      expect(await page.getByText('No job here.').count()).toBe(0);
      await page.getByRole('link', { name: 'First page' }).click();
      await page.locator(`tr[data-job="${jobs[0].id}"]`).waitFor();
      expect(await page.locator('[data-pager]').innerText()).toBe('Jobs 1–3 of 3');
      // In an order sorted among the newest jobs the count is not known past the end: the way back still is.
      await page.goto(`${running.url}/queues#/queue/mail?status=pending&name=past-end&sort=name&order=asc&offset=50`);
      await page.getByText('No job at 51 or after.').waitFor();
      await page.getByRole('link', { name: 'First page' }).click();
      await page.locator(`tr[data-job="${jobs[0].id}"]`).waitFor();
      // A list of whole pages (50 jobs): its last page starts at 26, not past the end again.
      await producer.addBulk(
        'mail',
        Array.from({ length: 50 }, (_, i) => ({ data: { n: i }, options: { name: 'two-pages', delay: 3_600_000 } })),
      );
      await page.goto(`${running.url}/queues#/queue/mail?status=pending&name=two-pages&offset=500`);
      await page.getByText('No job at 501 or after: this list holds 50.').waitFor();
      await page.getByRole('link', { name: 'Last page' }).click();
      await page.getByText('Jobs 26–50 of 50').waitFor();
      await page.close();
    });

    it("a click whose press spans a poll still lands: the poll's answer waits for the release", async () => {
      await running.app.close();
      running = await startDashboardApp(db, 'express', { refreshInterval: 1000 }, [ReportModule]);
      admin = running.app.get(QueueAdmin);
      await running.app.get(QueueProducer).upsertSchedule('report', 'nightly-report', { cron: '0 3 * * *', data: { n: -1 } });
      const page = await openPage(`${running.url}/queues#/schedules`);
      const button = page.getByRole('button', { name: 'Run nightly-report of report now' });
      await button.waitFor();
      const box = (await button.boundingBox())!;
      const shown = await page.locator('#live').innerText();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      // A poll answered while the button is held down: its update waits (or, without the wait, it replaced the button).
      const pollSeen = `document.getElementById('main').hasAttribute('data-update-held') || document.getElementById('live').textContent !== ${JSON.stringify(shown)}`;
      await waitFor(async () => (await page.evaluate(pollSeen)) === true, 'a poll answered while the button is pressed');
      await page.mouse.up();
      await waitFor(async () => (await admin.getJobs('report')).length === 1, 'the job the click ran now');
      await waitFor(
        async () => (await page.evaluate(`document.getElementById('main').hasAttribute('data-update-held')`)) === false,
        'the held poll applied',
      );
    });

    it('schedules: last run, next run, run now, pause and resume, delete after confirmation', async () => {
      await producer.upsertSchedule('report', 'nightly-report', { cron: '0 3 * * *', data: { n: -1 } });
      await producer.upsertSchedule('mail', 'digest', { every: 3_600_000, data: { n: 5 } });
      const page = await openPage(`${running.url}/queues#/schedules`);
      const row = page.locator('tr[data-schedule="report/nightly-report"]');
      await row.waitFor();
      expect(await row.locator('td[data-label="Last run"]').innerText()).toBe('never');
      expect(await row.locator('td[data-label="Next run"] time').count()).toBe(1);

      await page.getByRole('button', { name: 'Run nightly-report of report now' }).click();
      await page
        .getByRole('status')
        .getByText(/Schedule nightly-report of report ran now: job \d+/)
        .waitFor();
      const lastRun = row.locator('td[data-label="Last run"] a');
      await lastRun.waitFor({ timeout: 3000 });
      const [ran] = await admin.getJobs('report');
      expect(await lastRun.innerText()).toBe(`job ${ran.id}`);
      expect(ran).toMatchObject({ name: 'nightly-report', data: { n: -1 } });
      await waitFor(async () => (await admin.getJob(ran.id))?.status === 'completed', 'the run-now job completed');

      await page.getByRole('button', { name: 'Pause nightly-report of report' }).click();
      await row.locator('td[data-label="State"] .badge.paused').waitFor({ timeout: 3000 });
      expect((await producer.listSchedules()).find((s) => s.name === 'nightly-report')?.paused).toBe(true);
      // Declared again at boot (changed): still paused.
      await producer.upsertSchedule('report', 'nightly-report', { cron: '0 4 * * *', data: { n: -1 } });
      expect((await producer.listSchedules()).find((s) => s.name === 'nightly-report')).toMatchObject({ paused: true, cron: '0 4 * * *' });
      await page.getByRole('button', { name: 'Resume nightly-report of report' }).click();
      await row.locator('td[data-label="State"] .badge.active').waitFor({ timeout: 3000 });
      const resumed = (await producer.listSchedules()).find((s) => s.name === 'nightly-report')!;
      expect(resumed.paused).toBe(false);
      expect(resumed.nextRunAt.getTime()).toBeGreaterThan(Date.now());
      if (screenshots(backend)) await page.screenshot({ path: join(IMAGES, 'dashboard-schedules-controls.png'), fullPage: true });

      // Delete asks first: dismissed, nothing happens; accepted, the row goes at once.
      const wary = await openPage(`${running.url}/queues#/schedules`, 'dismiss');
      await wary.getByRole('button', { name: 'Delete digest of mail' }).click();
      await wary.getByRole('status').getByText('Nothing done.').waitFor();
      expect((await producer.listSchedules()).map((s) => s.name)).toContain('digest');
      await wary.close();
      await page.getByRole('button', { name: 'Delete digest of mail' }).click();
      await page.getByRole('status').getByText('Schedule digest of mail deleted').waitFor();
      await page.locator('tr[data-schedule="mail/digest"]').waitFor({ state: 'detached', timeout: 3000 });
      expect((await producer.listSchedules()).map((s) => s.name)).toEqual(['nightly-report']);

      // A schedule of large data: its cell shows the head of it, the whole in its tooltip, the row a few lines high.
      const big = { text: 'word '.repeat(2000) };
      await producer.upsertSchedule('mail', 'bulky', { every: 3_600_000, data: big });
      const bulky = page.locator('tr[data-schedule="mail/bulky"]');
      await page.reload();
      await bulky.waitFor();
      expect(await bulky.locator('td[data-label="Data"] [title]').getAttribute('title')).toBe(JSON.stringify(big));
      expect((await bulky.boundingBox())!.height).toBeLessThan(150);
      await page.close();
    });

    it('processes (live, stopped, lost), one label for a queue processed elsewhere, completed and failed apart, p50/p95 colours, whole-number axes, dark theme', async () => {
      // Another app on the same database processes `remote`; this one runs a `report` job that it holds.
      const moduleRef = await Test.createTestingModule({
        imports: [SqliteQueueModule.forRoot({ ...db.options, pollInterval: 100, workerId: 'remote-worker' }), RemoteModule],
      }).compile();
      remote = await moduleRef.createNestApplication({ logger: ['fatal'] }).init();
      let release!: () => void;
      report.hold = new Promise<void>((resolve) => (release = resolve));
      const held = await producer.add('report', { n: -1 });
      await producer.add('remote', {});
      await waitFor(async () => (await admin.getJob(held.id))?.status === 'running', 'report job running');
      await waitFor(async () => (await admin.listQueues()).find((q) => q.name === 'remote')?.processed === true, 'remote announced');
      running.behaviour.failing = true;
      await producer.addBulk('mail', [{ data: { n: 1 } }, { data: { fail: true } }, { data: { n: 2 } }]);
      await waitFor(async () => {
        const counts = await admin.getCounts('mail');
        return counts.completed === 2 && counts.failed === 1;
      }, 'mail settled');

      // What a process of a build before the processes table leaves: a job it runs, and no row of its own.
      // Its times are now's, as a live worker's would be (the screenshot reads "Last seen now", not 1970).
      const now = Date.now();
      const leaseEnd = now + 3_600_000;
      await rawSql(db, [
        `INSERT INTO {schema}.nest_queue_jobs (queue, status, data, priority, run_at, attempts, max_attempts, locked_by, lease_until, created_at, started_at, updated_at)
         VALUES ('legacy', 'running', '{}', 0, ${now}, 1, 1, 'old-build-worker', ${leaseEnd}, ${now}, ${now}, ${now})`,
      ]);
      const page = await openPage(`${running.url}/queues#/processes`);
      const self = (await admin.listProcesses()).self.workerId;
      // Every processing process, the idle remote one too, with its processors' running/concurrency.
      await page.locator(`tr[data-process="${self}"]`).waitFor();
      await page.locator('tr[data-process="remote-worker"]').waitFor();
      expect(await page.locator(`tr[data-process="${self}"] [data-running="report"]`).innerText()).toBe('1/1');
      expect(await page.locator(`tr[data-process="${self}"]`).innerText()).toContain('(this app)');
      expect(await page.locator('tr[data-process="remote-worker"]').getAttribute('data-state')).toBe('live');
      expect(await page.locator('tr[data-process="remote-worker"] [data-running="remote"]').innerText()).toMatch(/^0\/\d+$/);
      // Running jobs are told by their process's row; only the worker that announces no process is left over, apart.
      expect(await page.locator('tr[data-worker]').count()).toBe(1);
      expect(await page.locator('tr[data-worker="old-build-worker"] td[data-label="Running"]').innerText()).toBe('legacy × 1');
      expect(await page.locator('tr[data-worker="old-build-worker"] td[data-label="Last seen"]').innerText()).toMatch(/^(now|\d+ s ago)$/);
      expect(
        await page.locator('tr[data-local-processor]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-local-processor'))),
      ).toEqual(['mail', 'other', 'report']);
      expect(await page.locator('tr[data-announced="remote"]').count()).toBe(1);
      if (screenshots(backend)) await page.screenshot({ path: join(IMAGES, 'dashboard-processes.png'), fullPage: true });
      release();

      // A process that shut down shows as stopped, with when; one that stopped announcing without a shutdown (what
      // a kill -9 leaves in the processes table) as lost: each its own badge, in the page, not only in the API.
      await remote.close();
      remote = undefined;
      const gone = Date.now() - 60_000;
      await rawSql(db, [
        `INSERT INTO {schema}.nest_queue_processes (worker_id, queue, concurrency, started_at, seen_at, until, stopped_at)
         VALUES ('killed-worker', 'remote', 3, ${gone - 1000}, ${gone}, ${gone + 100}, NULL)`,
      ]);
      await page.reload();
      const stopped = page.locator('tr[data-process="remote-worker"][data-state="stopped"]');
      await stopped.waitFor();
      expect(await stopped.locator('td[data-label="State"] .badge').innerText()).toBe('stopped');
      expect(await stopped.locator('td[data-label="State"] .badge').getAttribute('class')).toBe('badge cancelled');
      expect(await stopped.locator('td[data-label="State"]').innerText()).toMatch(/^stopped\s+(now|\d+ s ago)$/);
      expect(await stopped.innerText()).not.toContain('(this app)');
      const lost = page.locator('tr[data-process="killed-worker"][data-state="lost"]');
      await lost.waitFor();
      const lostBadge = lost.locator('td[data-label="State"] .badge');
      expect(await lostBadge.innerText()).toBe('lost');
      expect(await lostBadge.getAttribute('class')).toBe('badge failed');
      expect(await lostBadge.getAttribute('title')).toContain('without a shutdown');
      expect(await lost.locator('td[data-label="Last seen"]').innerText()).toBe('1 min ago');
      expect(await lost.locator('[data-running="remote"]').innerText()).toBe('0/3');
      // Live processes first.
      const states = await page.locator('tr[data-process]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-state')));
      expect(states[0]).toBe('live');
      expect(states.slice(1).sort()).toEqual(['lost', 'stopped']);

      // On a phone each process is a card: a process of many processors wraps them, the page no wider than the screen.
      const seen = Date.now();
      await rawSql(
        db,
        ['mail', 'other', 'report', 'remote', 'legacy'].map(
          (queue) => `INSERT INTO {schema}.nest_queue_processes (worker_id, queue, concurrency, started_at, seen_at, until, stopped_at)
           VALUES ('busy-worker', '${queue}', 10, ${seen}, ${seen}, ${seen + 3_600_000}, NULL)`,
        ),
      );
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await page.locator('tr[data-process="busy-worker"] [data-running="legacy"]').waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      const legacy = await page.locator('tr[data-process="busy-worker"] [data-running="legacy"]').boundingBox();
      expect(legacy && legacy.x + legacy.width).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1280, height: 900 });

      // The overview: "processed by another process" for remote, on the queue page too; done split in two.
      await page.goto(`${running.url}/queues#/`);
      const remoteRow = page.locator('tr[data-queue="remote"]');
      await remoteRow.waitFor();
      expect(await remoteRow.locator('[data-processor]').innerText()).toBe('processed by another process');
      await page.locator('tr[data-queue="mail"] [data-done]').waitFor();
      expect(await page.locator('tr[data-queue="mail"] [data-done]').innerText()).toBe('2 completed · 1 failed');
      expect(await page.locator('[data-legend="percentiles"]').innerText()).toMatch(/p50.*p95/s);
      const colours = (await page.evaluate(`(() => {
        const of = (selector) => getComputedStyle(document.querySelector(selector)).color;
        return { p50: of('tr[data-queue="mail"] .pcts .p50'), p95: of('tr[data-queue="mail"] .pcts .p95') };
      })()`)) as { p50: string; p95: string };
      expect(colours.p50).not.toBe(colours.p95);
      await remoteRow.getByRole('link', { name: 'remote', exact: true }).click();
      await page.locator('h1 [data-processor]').waitFor();
      expect(await page.locator('h1 [data-processor]').innerText()).toBe('processed by another process');

      // The queue page's charts: counts on whole-number ticks; wait and run times each with a p50 and a p95 line.
      await page.goto(`${running.url}/queues#/queue/mail`);
      await page.locator('figure').first().waitFor();
      const ticks = await page
        .locator('figure')
        .first()
        .locator('text[data-tick]')
        .evaluateAll((t) => t.map((e) => Number(e.getAttribute('data-tick'))));
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      for (const tick of ticks) expect(Number.isInteger(tick)).toBe(true);
      // Legible at the width they are drawn (about 330 px of a 600-wide viewBox at 1280): every axis label of every
      // chart at least 10 px on screen, after a resize too.
      const axisPixels = () =>
        page.evaluate(`[...document.querySelectorAll('figure svg.chart text.axis')].map(
          (label) => parseFloat(getComputedStyle(label).fontSize) * label.getScreenCTM().a)`) as Promise<number[]>;
      const drawn = await axisPixels();
      expect(drawn.length).toBeGreaterThanOrEqual(12);
      for (const px of drawn) expect(px).toBeGreaterThanOrEqual(10);
      await page.setViewportSize({ width: 1000, height: 900 });
      await waitFor(async () => (await axisPixels()).every((px) => px >= 10 && px <= 12), 'the labels fitted to the new width');
      await page.setViewportSize({ width: 1280, height: 900 });
      const strokes = (await page.evaluate(
        `['.series-p50', '.series-p95'].map((selector) => getComputedStyle(document.querySelector('figure ' + selector)).stroke)`,
      )) as string[];
      expect(strokes[0]).not.toBe(strokes[1]);

      // Dark theme, from the system's preference.
      const background = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(await background()).toBe('rgb(255, 255, 255)');
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background()).toBe('rgb(13, 17, 23)');
      if (screenshots(backend)) await page.screenshot({ path: join(IMAGES, 'dashboard-dark.png'), fullPage: true });
      await page.close();
    });

    it("assets: content-hashed URLs cached for a year, br or gzip as accepted, JSON answers too; the page weight and each page's poll measured", async () => {
      const html = await fetch(`${running.url}/queues`).then((r) => r.text());
      const script = /src="\/queues\/assets\/(dashboard\.[0-9a-f]{16}\.js)"/.exec(html)?.[1];
      const style = /href="\/queues\/assets\/(dashboard\.[0-9a-f]{16}\.css)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      expect(style).toBeDefined();
      const url = `${running.url}/queues/assets/${script}`;
      const plain = await getRaw(url, {});
      expect(plain.status).toBe(200);
      expect(plain.headers).toMatchObject({ 'cache-control': 'public, max-age=31536000, immutable', vary: 'Accept-Encoding' });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
      const br = await getRaw(url, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding']).toBe('br');
      const gz = await getRaw(url, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect((await getRaw(url, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
      const { brotliDecompressSync, gunzipSync } = await import('node:zlib');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length / 3);
      expect((await getRaw(`${running.url}/queues/assets/dashboard.js`, {})).status).toBe(404);
      expect((await getRaw(`${running.url}/queues/assets/${style}`, { 'accept-encoding': 'br' })).headers).toMatchObject({
        'content-type': 'text/css; charset=utf-8',
        'content-encoding': 'br',
      });

      // In Chromium: what the first load transfers, what a reload fetches again, and one poll of each page (the
      // overview, a queue's page with a full page of jobs, a job's page), as the browser asks for them (br accepted).
      await producer.addBulk(
        'mail',
        Array.from({ length: 30 }, (_, n) => ({
          data: { n, fail: n % 3 === 0 },
          options: { name: n % 2 ? 'receipt' : 'welcome-email', key: `order-${n}` },
        })),
      );
      await waitFor(async () => {
        const counts = await admin.getCounts('mail');
        return counts.completed + counts.failed === 30;
      }, 'mail settled');
      const [failedJob] = await admin.getJobs('mail', { status: 'failed', limit: 1 });
      const page = await browser.context.newPage();
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Network.enable');
      const transfers: { url: string; bytes: number; cached: boolean; encoding?: string }[] = [];
      const urls = new Map<string, string>();
      const encodings = new Map<string, string>();
      cdp.on('Network.requestWillBeSent', (event) => urls.set(event.requestId, event.request.url));
      cdp.on('Network.responseReceived', (event) => {
        const headers = event.response.headers as Record<string, string>;
        encodings.set(event.requestId, headers['content-encoding'] ?? headers['Content-Encoding'] ?? 'identity');
      });
      cdp.on('Network.loadingFinished', (event) =>
        transfers.push({
          url: urls.get(event.requestId) ?? '',
          bytes: event.encodedDataLength,
          cached: false,
          encoding: encodings.get(event.requestId),
        }),
      );
      cdp.on('Network.requestServedFromCache', (event) => transfers.push({ url: urls.get(event.requestId) ?? '', bytes: 0, cached: true }));
      await page.goto(`${running.url}/queues`);
      await page.locator('tr[data-queue="mail"]').waitFor();
      await waitFor(() => transfers.some((t) => /\/api\/overview$/.test(t.url)), 'the first read counted');
      const first = transfers.splice(0).reduce((sum, t) => sum + t.bytes, 0);
      await page.reload();
      await page.locator('tr[data-queue="mail"]').waitFor();
      const again = transfers.splice(0);
      const refetched = again.filter((t) => /\/assets\//.test(t.url) && !t.cached && t.bytes > 1000);
      expect(refetched).toEqual([]);
      // One poll of a page is the read(s) its refresh makes: the same as on arriving at it.
      const pollOf = async (hash: string, ready: string, api: RegExp[]) => {
        transfers.splice(0);
        await page.goto(`${running.url}/queues${hash}`);
        await page.locator(ready).first().waitFor();
        await waitFor(() => api.every((pattern) => transfers.some((t) => pattern.test(t.url))), `the reads of ${hash}`);
        const reads = transfers.filter((t) => api.some((pattern) => pattern.test(t.url)));
        // Each answer of a poll worth compressing went compressed, as the browser accepts br.
        for (const read of reads) if (read.bytes > 1500) expect(read).toMatchObject({ encoding: 'br' });
        return reads.reduce((sum, t) => sum + t.bytes, 0);
      };
      const overviewPoll = await pollOf('#/', 'tr[data-queue="mail"]', [/\/api\/overview$/]);
      const queuePoll = await pollOf('#/queue/mail', `tr[data-job]`, [/\/api\/queue\?queue=mail&/]);
      const jobPoll = await pollOf(`#/job/${failedJob.id}`, '[data-panel="fields"]', [
        new RegExp(`/api/job\\?id=${failedJob.id}$`),
        new RegExp(`/api/job/explain\\?id=${failedJob.id}$`),
      ]);
      // The same queue read without compression: what it would cost without Accept-Encoding (or behind a proxy that drops it).
      const queueRaw = (await getRaw(`${running.url}/queues/api/queue?queue=mail&status=&offset=0`, {})).body.length;
      // Figures for docs/dashboard.md ("Page weight and traffic"), printed by the run that measures them; the bounds
      // below are the budgets that page states, so its figures cannot drift far unnoticed.
      process.stdout.write(
        `dashboard weight [${backend.name}]: script ${plain.body.length} B (${br.body.length} br, ${gz.body.length} gzip), ` +
          `first load ${first} B, one poll: overview ${overviewPoll} B, queue page ${queuePoll} B (body ${queueRaw} B uncompressed), ` +
          `job page ${jobPoll} B\n`,
      );
      expect(br.body.length).toBeLessThan(20_000);
      expect(gz.body.length).toBeLessThan(24_000);
      expect(first).toBeLessThan(30_000);
      expect(overviewPoll).toBeLessThan(4_000);
      expect(queuePoll).toBeLessThan(5_000);
      expect(jobPoll).toBeLessThan(5_000);
      await page.close();
    });
  },
  ['better-sqlite3', 'postgres'],
);
