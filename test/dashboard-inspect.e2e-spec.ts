/**
 * The dashboard's inspection parts, in a real headless Chromium against a running
 * app on SQLite and PostgreSQL: the queue page's search finds jobs by the text of their data (and still by id), the
 * job page's Explain panel shows `QueueAdmin.explain`, a dead-letter queue's page says so and offers "Redrive all"
 * (hidden when read-only), and a dead letter's page links the job it came from.
 */
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { Job, QueueAdmin, QueueProducer } from '../lib';
import { DashboardApp, startDashboardApp } from './fixtures/dashboard-app';
import { defineProcessor } from './fixtures/define-processor';
import { TestDatabase, describeEachBackend } from './support/backends';
import { useBrowser } from './support/browser';
import { waitFor } from './support/wait-for';

/** `billing` fails for good while `failing` holds, and sends its failures to `billing-dead`, which nothing processes. */
const billing = { failing: true };
const Billing = defineProcessor<{ invoice: number }>(
  'billing',
  async (job: Job<{ invoice: number }>) => {
    if (billing.failing) throw new Error(`card declined for invoice ${job.data.invoice}`);
    return 'charged';
  },
  { maxAttempts: 1, deadLetter: 'billing-dead' },
);
@Module({ providers: [Billing] })
class BillingModule {}

const { openPage } = useBrowser();
/** The docs' screenshots of this file's panels, taken on better-sqlite3 by the tests that check them. */
const IMAGES = join(__dirname, '..', 'docs', 'images');

describeEachBackend(
  'dashboard: search, explain, dead letters',
  (backend) => {
    let db: TestDatabase;
    let running: DashboardApp | undefined;
    let readOnly: DashboardApp | undefined;
    let admin: QueueAdmin;
    let producer: QueueProducer;

    beforeEach(async () => {
      billing.failing = true;
      db = await backend.migratedDatabase();
      running = await startDashboardApp(db, 'express', { refreshInterval: 60_000 }, [BillingModule]);
      admin = running.app.get(QueueAdmin);
      producer = running.app.get(QueueProducer);
    });
    afterEach(async () => {
      await readOnly?.app.close();
      readOnly = undefined;
      await running?.app.close();
      db?.cleanup();
    });

    it('the search box finds jobs by the text of their data, and still by id', async () => {
      const ada = await producer.add('other', { to: 'ada@example.com' }, { delay: 3_600_000 });
      const bob = await producer.add('other', { to: 'bob@example.com' }, { delay: 3_600_000 });
      const page = await openPage(`${running!.url}/queues#/queue/other`);
      await page.locator(`tr[data-job="${bob.id}"]`).waitFor();
      await page.locator('#job-search').fill('ada@example');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.locator(`tr[data-job="${ada.id}"]`).waitFor();
      await waitFor(async () => (await page.locator('#queue-jobs tr[data-job]').count()) === 1, 'only the match is listed');
      expect(await page.locator('[data-search-result]').innerText()).toBe('1 match.');

      await page.locator('#job-search').fill(bob.id);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.locator(`tr[data-job="${bob.id}"]`).waitFor();
      expect(await page.locator(`tr[data-job="${ada.id}"]`).count()).toBe(0);

      await page.locator('#job-search').fill('carol@example.com');
      await page.getByRole('button', { name: 'Search' }).click();
      // Nothing found: the page says where it looked (the text among the newest 100,000 jobs only).
      await page
        .getByText(
          'No job of this queue has id or key "carol@example.com", nor text "carol@example.com" among the newest 100,000 jobs of the database.',
        )
        .waitFor();

      // More matches than a page: the first 25 are shown, and the page says that more may match (it is not paged).
      await producer.addBulk(
        'other',
        Array.from({ length: 26 }, (_, n) => ({ data: { to: `team${n}@example.com` }, options: { delay: 3_600_000 } })),
      );
      await page.locator('#job-search').fill('@example.com');
      await page.getByRole('button', { name: 'Search' }).click();
      const result = page.locator('[data-search-result="more"]');
      await result.waitFor();
      expect(await result.innerText()).toBe(
        '25 shown, more may match: narrow the search (a status tab, a job name or a group), or search a longer text.',
      );
      expect(await page.locator('#queue-jobs tr[data-job]').count()).toBe(25);
      const api = (await (await fetch(`${running!.url}/queues/api/queues/other?search=${encodeURIComponent('@example.com')}`)).json()) as {
        jobs: unknown[];
        total: number | null;
        more: boolean;
      };
      expect({ shown: api.jobs.length, total: api.total, more: api.more }).toEqual({ shown: 25, total: null, more: true });
      await page.close();
    });

    it("the job page's Explain panel shows explain()'s status, reason, until and detail", async () => {
      const job = await producer.add('other', { n: 1 }, { delay: 3_600_000 });
      const why = await admin.explain(job.id);
      expect(why.reason).toBe('delayed');
      const page = await openPage(`${running!.url}/queues#/job/${job.id}`);
      const panel = page.locator('[data-panel="explain"]');
      await panel.locator('[data-explain="reason"]').waitFor();
      expect(await panel.locator('[data-explain="status"]').innerText()).toBe('pending');
      expect(await panel.locator('[data-explain="reason"]').innerText()).toBe('delayed');
      expect(await panel.locator('[data-explain="until"] time').getAttribute('datetime')).toBe(why.until!.toISOString());
      expect(await panel.locator('[data-explain="detail"]').innerText()).toBe(why.detail);
      if (backend.name === 'better-sqlite3') await panel.screenshot({ path: join(IMAGES, 'dashboard-explain.png') });

      // A job id that names no job: the route answers 404 with explain()'s message.
      const missing = await fetch(`${running!.url}/queues/api/jobs/999999/explain`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { message: string }).message).toMatch(/999999/);
      await page.close();
    });

    it("a dead-letter queue's page offers Redrive all; a dead letter's page links the job it came from", async () => {
      const failed = await producer.add('billing', { invoice: 17 });
      await waitFor(async () => (await admin.getJob(failed.id))?.status === 'failed', 'the billing job failed');
      await waitFor(async () => (await admin.getJobs('billing-dead')).length === 1, 'its dead letter arrived');
      const [dead] = await admin.getJobs('billing-dead');

      // The dead letter's page: where it came from, the failed job linked, its error.
      const page = await openPage(`${running!.url}/queues#/job/${dead.id}`);
      const origin = page.locator('[data-panel="dead-letter"]');
      await origin.locator('[data-dead-letter="job"] a').waitFor();
      expect(await origin.locator('[data-dead-letter="queue"]').innerText()).toBe('billing');
      expect(await origin.locator('[data-dead-letter="job"] a').getAttribute('href')).toBe(`#/job/${failed.id}`);
      expect(await origin.locator('[data-dead-letter="error"]').innerText()).toBe('Error: card declined for invoice 17');
      // A job that is no dead letter has no such panel.
      await page.goto(`${running!.url}/queues#/job/${failed.id}`);
      await page.locator('[data-panel="explain"] [data-explain="reason"]').waitFor();
      expect(await page.locator('[data-panel="dead-letter"]').isHidden()).toBe(true);

      // The dead-letter queue's page: marked, with the source queue and its count, and Redrive all.
      await page.goto(`${running!.url}/queues#/queue/billing-dead`);
      const panel = page.locator('[data-panel="dead-letters"]');
      await panel.locator('[data-dead-letters="1"]').waitFor();
      expect(await panel.locator('p').innerText()).toBe('A dead-letter queue of billing: 1 dead letter(s) waiting.');
      // An ordinary queue's page has no such panel.
      const plain = (await (await fetch(`${running!.url}/queues/api/queues/billing`)).json()) as { deadLetterQueue: unknown };
      expect(plain.deadLetterQueue).toBeNull();

      // Read-only: the panel shows, the button does not, and the route refuses.
      readOnly = await startDashboardApp(db, 'express', { readOnly: true, refreshInterval: 60_000 });
      const viewer = await openPage(`${readOnly.url}/queues#/queue/billing-dead`);
      await viewer.locator('[data-panel="dead-letters"] [data-dead-letters="1"]').waitFor();
      expect(await viewer.getByRole('button', { name: 'Redrive all' }).count()).toBe(0);
      const refused = await fetch(`${readOnly.url}/queues/api/queues/billing-dead/redrive`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: readOnly.url },
        body: '{}',
      });
      expect(refused.status).toBe(403);
      expect(await admin.listDeadLetterQueues()).toEqual([{ queue: 'billing-dead', sources: ['billing'], count: 1 }]);
      await viewer.close();

      // Redrive all (confirmed): the dead letter runs again in billing, and the page shows none waiting at once (the
      // emptied dead-letter queue's page stays: a processor still names it).
      billing.failing = false;
      await panel.getByRole('button', { name: 'Redrive all' }).click();
      await panel.locator('[data-dead-letters="0"]').waitFor();
      await waitFor(async () => (await admin.getJobs('billing', { status: 'completed' })).length === 1, 'the redriven job completed');
      expect(await admin.listDeadLetterQueues()).toEqual([{ queue: 'billing-dead', sources: ['billing'], count: 0 }]);
      await page.close();
    });
  },
  ['better-sqlite3', 'postgres'],
);
