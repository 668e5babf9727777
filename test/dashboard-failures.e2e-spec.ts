/**
 * Failures grouped by error and a job's attempts, and dead-letter-only queues known to `hasQueue`,
 * on SQLite and PostgreSQL: `QueueAdmin.getFailureGroups` (counts, newest job, order, limit, long and quoted
 * messages, bad options typed), the queue page's "Failures by error" panel linking to the failed jobs of a message,
 * and the job page's "Attempts" panel (every run of the job's history, snoozes too), in a real headless Chromium.
 * One app per backend: each test uses queues of its own, so none needs a fresh database.
 */
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { BatchProcessor, InvalidArgumentError, Job, Processor, QueueAdmin, QueueProducer, SnoozeError } from '../lib';
import { DashboardApp, startDashboardApp } from './fixtures/dashboard-app';
import { defineProcessor } from './fixtures/define-processor';
import { rawSql } from './fixtures/legacy-schema';
import { TestDatabase, describeEachBackend } from './support/backends';
import { useBrowser } from './support/browser';
import { waitFor } from './support/wait-for';

interface Failing {
  reason: string;
}

/** `payments` throws the job's `reason` on every attempt: one attempt, so each job fails at once. */
const Payments = defineProcessor<Failing>(
  'payments',
  async (job: Job<Failing>) => {
    throw new Error(job.data.reason);
  },
  { maxAttempts: 1 },
);
/** `flaky` fails its first two attempts, then completes. */
const Flaky = defineProcessor<{ n: number }>('flaky', async (job: Job<{ n: number }>) => {
  if (job.attempt < 3) throw new TypeError(`flake ${job.attempt}`);
  return 'done';
});
/** `dozy` snoozes its first run, then completes. */
const dozed = new Set<string>();
const Dozy = defineProcessor('dozy', async (job: Job) => {
  if (dozed.has(job.id)) return 'awake';
  dozed.add(job.id);
  throw new SnoozeError(1);
});
/** `refunds` names a dead-letter queue that has never held a job. */
const Refunds = defineProcessor('refunds', async () => 'ok', { deadLetter: 'refunds-dead' });
/** `tenants` holds each job until `release` is called (a new hold per backend): its groups have running jobs. */
let release: () => void = () => undefined;
let held = Promise.resolve();
const Tenants = defineProcessor('tenants', () => held.then(() => 'ok'), { concurrency: 4 });
/** `bundles` runs batches of 2: a job whose data says `flake` fails its first attempt, alone in the batch. */
@Processor('bundles', { batch: { size: 2, maxWaitMs: 100 }, backoff: { type: 'fixed', delay: 0 } })
class Bundles implements BatchProcessor<{ flake: boolean }> {
  async process(jobs: Job<{ flake: boolean }>[]): Promise<unknown[]> {
    return jobs.map((job) => (job.data.flake && job.attempt === 1 ? new Error('flaky bundle') : 'bundled'));
  }
}
@Module({ providers: [Payments, Flaky, Dozy, Refunds, Tenants, Bundles] })
class FailuresModule {}

const LONG = 'x'.repeat(3000);

const { openPage } = useBrowser();
/** The docs' screenshots of this file's panels, taken on better-sqlite3 by the tests that check them. */
const IMAGES = join(__dirname, '..', 'docs', 'images');

describeEachBackend(
  'dashboard: failures by error, attempts, dead-letter-only queues',
  (backend) => {
    let db: TestDatabase;
    let running: DashboardApp;
    let admin: QueueAdmin;
    let producer: QueueProducer;
    const failed: Record<string, string[]> = { declined: [], quoted: [], long: [], expired: [] };
    const shots = backend.name === 'better-sqlite3';

    beforeAll(async () => {
      held = new Promise<void>((resolve) => (release = resolve));
      // Job ids start again at 1 on each backend's database.
      dozed.clear();
      db = await backend.migratedDatabase();
      running = await startDashboardApp(db, 'express', { refreshInterval: 60_000 }, [FailuresModule]);
      admin = running.app.get(QueueAdmin);
      producer = running.app.get(QueueProducer);
      // One after the other, so that finish times (and so "newest") follow the order of the adds.
      const add = async (group: string, reason: string) => {
        const job = await producer.add('payments', { reason });
        await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', `job ${job.id} failed`);
        failed[group].push(job.id);
      };
      for (let i = 0; i < 3; i++) await add('declined', 'card declined');
      await add('quoted', 'bank said "no" to C:\\card');
      await add('long', LONG);
      await add('declined', 'card declined');
    });
    afterAll(async () => {
      release();
      await running?.app.close();
      db?.cleanup();
    });

    it('getFailureGroups counts failed jobs by error, most first, with the newest job of each', async () => {
      const groups = await admin.getFailureGroups('payments');
      expect(groups.map((g) => [g.name, g.message.slice(0, 30), g.count])).toEqual([
        ['Error', 'card declined', 4],
        // Ties by newest first: the long message failed after the quoted one.
        ['Error', LONG.slice(0, 30), 1],
        ['Error', 'bank said "no" to C:\\card', 1],
      ]);
      const declined = groups[0];
      expect(declined.sampleJobId).toBe(failed.declined[3]);
      const newest = await admin.getJob(failed.declined[3]);
      expect(declined.lastFailedAt.getTime()).toBe(newest!.finishedAt!.getTime());
      // A message longer than the error head read is grouped by its head, marked as cut.
      expect(groups[1].message.endsWith('…')).toBe(true);
      expect(groups[1].message.length).toBeGreaterThan(1500);
      expect(LONG.startsWith(groups[1].message.slice(0, -1))).toBe(true);

      expect(await admin.getFailureGroups('payments', { limit: 1 })).toHaveLength(1);
      expect(await admin.getFailureGroups('flaky')).toEqual([]);
      for (const bad of [{ limit: 0 }, { limit: 101 }, { limit: 1.5 }, { limt: 3 }, null, []]) {
        await expect(admin.getFailureGroups('payments', bad as never)).rejects.toBeInstanceOf(InvalidArgumentError);
      }
      await expect(admin.getFailureGroups('payments', { limt: 3 } as never)).rejects.toThrow(/did you mean "limit"/);
    });

    it("the queue page's Failures panel links each error to the failed jobs holding its message", async () => {
      const page = await openPage(`${running.url}/queues#/queue/payments`);
      const panel = page.locator('[data-panel="failures"]');
      const declined = panel.locator(`tr[data-failure-group="${failed.declined[3]}"]`);
      await declined.waitFor();
      expect(await panel.locator('tbody tr').count()).toBe(3);
      expect(await declined.locator('[data-label="Jobs"]').innerText()).toBe('4');
      expect(await declined.locator('[data-label="Newest"] a').getAttribute('href')).toBe(`#/job/${failed.declined[3]}`);
      if (shots) await panel.screenshot({ path: join(IMAGES, 'dashboard-failures.png') });

      await declined.getByRole('link', { name: 'Error: card declined' }).click();
      await waitFor(async () => (await page.locator('#queue-jobs tr[data-job]').count()) === 4, 'the four declined jobs are listed');
      for (const id of failed.declined) expect(await page.locator(`#queue-jobs tr[data-job="${id}"]`).count()).toBe(1);
      expect(page.url()).toContain('status=failed');

      // A quoted message links by its head before the first quote: the search reads the stored JSON.
      await page.goto(`${running.url}/queues#/queue/payments`);
      const quoted = panel.locator(`tr[data-failure-group="${failed.quoted[0]}"] a`).first();
      await quoted.waitFor();
      await quoted.click();
      await page.locator(`#queue-jobs tr[data-job="${failed.quoted[0]}"]`).waitFor();
      expect(await page.locator('#job-search').inputValue()).toBe('bank said');

      // A queue without failures hides the panel.
      await page.goto(`${running.url}/queues#/queue/refunds`);
      await page.locator('h1', { hasText: 'Queue refunds' }).waitFor();
      expect(await page.locator('[data-panel="failures"]').isHidden()).toBe(true);
      await page.close();
    });

    it("the job page's Attempts panel shows every run's start, end, process, outcome and error, snoozes too", async () => {
      const job = await producer.add('flaky', { n: 1 }, { maxAttempts: 3, backoff: { type: 'fixed', delay: 0 } });
      const done = await admin.waitUntilFinished(job.id, { timeout: 30_000 });
      expect(done.status).toBe('completed');
      const runs = (await admin.getJob(job.id))!.runs!;
      const page = await openPage(`${running.url}/queues#/job/${job.id}`);
      const panel = page.locator('[data-panel="attempts"]');
      await panel.locator('table[data-attempts="3"]').waitFor();
      const outcomes = await panel.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-outcome')));
      expect(outcomes).toEqual(['completed', 'retried', 'retried']);
      const last = panel.locator('tr[data-attempt="3"]');
      expect(await last.locator('[data-label="Started"] time').getAttribute('datetime')).toBe(done.startedAt!.toISOString());
      expect(await last.locator('[data-label="Ended"] time').getAttribute('datetime')).toBe(done.finishedAt!.toISOString());
      for (const n of [1, 2]) {
        const row = panel.locator(`tr[data-attempt="${n}"]`);
        const run = runs[n - 1];
        expect(await row.locator('[data-label="Error"]').innerText()).toBe(`TypeError: flake ${n}`);
        expect(await row.locator('[data-label="Outcome"]').innerText()).toBe('failed, retried');
        expect(await row.locator('[data-label="Started"] time').getAttribute('datetime')).toBe(run.startedAt!.toISOString());
        expect(await row.locator('[data-label="Ended"] time').getAttribute('datetime')).toBe(run.endedAt!.toISOString());
        expect(await row.locator('[data-label="Process"]').innerText()).toBe(run.owner);
      }
      expect(runs[0].owner).toBeTruthy();
      // The completing run names its process too (a completion keeps locked_by), and the footnote says so.
      expect(runs[2]).toMatchObject({ outcome: 'completed', owner: runs[0].owner });
      expect(await last.locator('[data-label="Process"]').innerText()).toBe(runs[2].owner);
      const footnote = await panel.locator('p[data-snoozes]').innerText();
      expect(footnote).toContain('the run that completed has the job’s own times and the process that ran it');
      expect(footnote).not.toContain('not kept');
      expect(await panel.getByText('not stored').count()).toBe(0);
      if (shots) await panel.screenshot({ path: join(IMAGES, 'dashboard-attempts.png') });

      // A job from before run histories (schema step 12) still shows its failures, by their errors alone.
      await rawSql(db, [`UPDATE {schema}.nest_queue_jobs SET runs = NULL WHERE id = ${Number(job.id)}`]);
      await page.reload();
      await panel.locator('table[data-attempts="3"]').waitFor();
      const first = panel.locator('tr[data-attempt="1"]');
      await first.locator('[data-label="Started"]', { hasText: 'not stored' }).waitFor();
      expect(await first.locator('[data-label="Error"]').innerText()).toBe('TypeError: flake 1');

      // Snoozes are runs of their own, of the same attempt.
      const dozy = await producer.add('dozy', {});
      await admin.waitUntilFinished(dozy.id, { timeout: 30_000 });
      await page.goto(`${running.url}/queues#/job/${dozy.id}`);
      await panel.locator('table[data-attempts="2"]').waitFor();
      const dozed = await panel
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-outcome'), row.getAttribute('data-attempt')]));
      expect(dozed).toEqual([
        ['completed', '1'],
        ['snoozed', '1'],
      ]);
      const snoozed = (await admin.getJob(dozy.id))!.runs![0];
      expect(await panel.locator('tr[data-outcome="snoozed"] [data-label="Process"]').innerText()).toBe(snoozed.owner);

      // A job not yet started has no attempt to show.
      const later = await producer.add('flaky', { n: 2 }, { delay: 3_600_000 });
      await page.goto(`${running.url}/queues#/job/${later.id}`);
      await panel.getByText('No attempt has started yet.').waitFor();
      await page.close();
    });

    it('a long word wraps: a failed job whose error is one, a group filter naming one, fit the window', async () => {
      const page = await openPage(`${running.url}/queues#/job/${failed.long[0]}`);
      const fits = async (selector: string) => {
        // The text wraps inside its box: the page has no horizontal scroll, the box stays on screen.
        const widths = (await page.evaluate('({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })')) as {
          page: number;
          viewport: number;
        };
        expect(widths.page).toBeLessThanOrEqual(widths.viewport);
        const box = await page.locator(selector).boundingBox();
        expect(box && box.x + box.width).toBeLessThanOrEqual(widths.viewport);
      };
      await page.locator('[data-panel="errors"] [data-error-message]').waitFor();
      expect(await page.locator('[data-panel="errors"] [data-error-message]').innerText()).toBe(LONG);
      await fits('[data-panel="errors"] [data-error-message]');
      const group = 'g'.repeat(256);
      await page.goto(`${running.url}/queues#/queue/payments?group=${group}`);
      await page.locator(`[data-group-filter="${group}"]`).waitFor();
      await fits('[data-group-filter]');
      await page.close();
    });

    it('the Failures panel shows a long error in three lines, as the job table does, the rest in its tooltip', async () => {
      const page = await openPage(`${running.url}/queues#/queue/payments`);
      const link = page.locator(`[data-panel="failures"] tr[data-failure-group="${failed.long[0]}"] a.clamp`);
      await link.waitFor();
      // The tooltip holds the message as the server groups it (cut there, with an ellipsis).
      expect(await link.getAttribute('title')).toMatch(/^Error: x{100,}…?$/);
      // A line is the height of a one-line error's link ("card declined").
      const height = async (id: string) =>
        (await page.locator(`[data-panel="failures"] tr[data-failure-group="${id}"] a.clamp`).boundingBox())!.height;
      const line = await height(failed.declined[3]);
      expect(await height(failed.long[0])).toBeLessThanOrEqual(3 * line + 1);
      expect(await height(failed.long[0])).toBeGreaterThan(2 * line);
      await page.close();
    });

    it('the Attempts panel says which runs were part of a batch, and of how many jobs', async () => {
      // Added while the queue is paused, so that one claim takes both into one call.
      await admin.pause('bundles');
      const flaky = await producer.add('bundles', { flake: true }, { maxAttempts: 2 });
      const steady = await producer.add('bundles', { flake: false });
      await admin.resume('bundles');
      expect((await admin.waitUntilFinished(flaky.id, { timeout: 30_000 })).status).toBe('completed');
      expect((await admin.waitUntilFinished(steady.id, { timeout: 30_000 })).status).toBe('completed');
      const runs = (await admin.getJob(flaky.id))!.runs!;
      expect(runs.map((run) => [run.outcome, run.attempt, run.batchSize])).toEqual([
        ['retried', 1, 2],
        ['completed', 2, 1],
      ]);
      const page = await openPage(`${running.url}/queues#/job/${flaky.id}`);
      const panel = page.locator('[data-panel="attempts"]');
      await panel.locator('table[data-attempts="2"]').waitFor();
      expect(await panel.locator('tr[data-attempt="1"] [data-label="Outcome"]').innerText()).toBe('failed, retried in a batch of 2');
      expect(await panel.locator('tr[data-attempt="2"] [data-batch]').getAttribute('data-batch')).toBe('1');
      // A single-job handler's runs say nothing of batches.
      const flakyJob = await producer.add('flaky', { n: 3 }, { maxAttempts: 3, backoff: { type: 'fixed', delay: 0 } });
      await admin.waitUntilFinished(flakyJob.id, { timeout: 30_000 });
      await page.goto(`${running.url}/queues#/job/${flakyJob.id}`);
      await panel.locator('table[data-attempts="3"]').waitFor();
      expect(await panel.locator('[data-batch]').count()).toBe(0);
      await page.close();
    });

    it("the busiest groups and the Group cells link to the queue's jobs of one group, with that group's counts, also with a name and a search", async () => {
      const acme = [
        await producer.add('tenants', {}, { group: 'acme', name: 'sync' }),
        await producer.add('tenants', { note: 'needle' }, { group: 'acme' }),
      ];
      const globex = await producer.add('tenants', { note: 'needle' }, { group: 'globex', name: 'sync' });
      await waitFor(async () => (await admin.getCounts('tenants')).running === 3, 'the three jobs run');
      const page = await openPage(`${running.url}/queues#/queue/tenants`);
      const link = page.locator('[data-panel="groups"] a[data-group="acme"]');
      await link.waitFor();
      await link.click();
      await page.locator('[data-group-filter="acme"]').waitFor();
      await waitFor(async () => (await page.locator('#queue-jobs tr[data-job]').count()) === 2, "only acme's jobs are listed");
      for (const job of acme) expect(await page.locator(`#queue-jobs tr[data-job="${job.id}"]`).count()).toBe(1);
      expect(await page.locator(`#queue-jobs tr[data-job="${globex.id}"]`).count()).toBe(0);
      expect(await page.locator('.tabs a', { hasText: 'All' }).innerText()).toBe('All (2)');
      const listed = () => page.locator('#queue-jobs tr[data-job]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-job')));

      // A job name within the group: that name's jobs of the group, and the tabs count those (getCounts takes both).
      await page.getByLabel('Job name', { exact: true }).fill('sync');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('link', { name: /^All \(1\)$/ }).waitFor();
      expect(await listed()).toEqual([acme[0].id]);
      expect(await page.locator('[data-group-filter="acme"]').count()).toBe(1);
      expect(await admin.getCounts('tenants', { group: 'acme', name: 'sync' })).toMatchObject({ running: 1, pending: 0 });
      if (shots) await page.screenshot({ path: join(IMAGES, 'dashboard-groups.png'), fullPage: true });

      // A search within the group (every name again): the group's matches only; the tabs still count the group's jobs.
      await page.getByRole('link', { name: 'All names' }).click();
      await page.getByRole('link', { name: /^All \(2\)$/ }).waitFor();
      await page.locator('#job-search').fill('needle');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.locator(`#queue-jobs tr[data-job="${acme[1].id}"]`).waitFor();
      await waitFor(async () => JSON.stringify(await listed()) === JSON.stringify([acme[1].id]), "only acme's match is listed");
      expect(await page.locator('[data-group-filter="acme"]').count()).toBe(1);
      expect(await page.locator('.tabs a', { hasText: 'All' }).innerText()).toBe('All (2)');
      // The three filters together answer, never one of them silently dropped.
      const all = (await (await fetch(`${running.url}/queues/api/queues/tenants?group=acme&name=sync&search=needle`)).json()) as {
        jobs: unknown[];
        nameCounts: Record<string, number>;
      };
      expect(all.jobs).toEqual([]);
      expect(all.nameCounts).toMatchObject({ running: 1 });

      await page.getByRole('link', { name: 'All groups' }).click();
      await waitFor(async () => JSON.stringify(await listed()) === JSON.stringify([globex.id, acme[1].id]), "every group's match");
      await page.getByRole('link', { name: 'Clear search' }).click();
      await waitFor(async () => (await page.locator('#queue-jobs tr[data-job]').count()) === 3, 'every job is listed again');

      // The jobs table's Group cells apply the same filter, for any group (the panel lists the busiest five).
      await page.locator(`#queue-jobs tr[data-job="${globex.id}"] td[data-label="Group"] a[data-group-link="globex"]`).click();
      await page.locator('[data-group-filter="globex"]').waitFor();
      await waitFor(async () => JSON.stringify(await listed()) === JSON.stringify([globex.id]), "only globex's job is listed");
      expect(await page.locator('.tabs a', { hasText: 'All' }).innerText()).toBe('All (1)');
      // Within the group, its cells are the group's name, no longer links to where the page already is.
      expect(await page.locator('#queue-jobs a[data-group-link]').count()).toBe(0);
      expect(await page.locator(`#queue-jobs tr[data-job="${globex.id}"] td[data-label="Group"]`).innerText()).toBe('globex');
      await page.close();
    });

    it('hasQueue knows a dead-letter queue before its first dead letter, and so does its page', async () => {
      expect(await admin.hasQueue('refunds-dead')).toBe(true);
      expect(await admin.hasQueue('refunds-deaf')).toBe(false);
      const answer = await fetch(`${running.url}/queues/api/queues/refunds-dead`);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { deadLetterQueue: { count: number } }).deadLetterQueue.count).toBe(0);
      expect((await fetch(`${running.url}/queues/api/queues/refunds-deaf`)).status).toBe(404);
    });
  },
  ['better-sqlite3', 'postgres'],
);
