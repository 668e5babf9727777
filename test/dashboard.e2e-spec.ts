/**
 * The dashboard in a real headless Chromium against running apps, on Express and Fastify: counts as QueueAdmin
 * gives them, a failed job's error, retry to completion, pause that stops claims, escaping (a `<script>` payload),
 * the same-origin check of actions (CSRF), read-only mode, guards, redaction, and nothing mounted without the module.
 * The screenshots in docs/images/ come from this run (Express on better-sqlite3).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, request, Server } from 'node:http';
import { connect } from 'node:net';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Page } from 'playwright-core';
import * as ts from 'typescript';
import { QueueAdmin, QueueProducer } from '../lib';
import { Adapter, DashboardApp, startDashboardApp } from './fixtures/dashboard-app';
import { Backend, TestDatabase, describeEachBackend } from './support/backends';
import { useBrowser } from './support/browser';
import { waitFor } from './support/wait-for';

const IMAGES = join(__dirname, '..', 'docs', 'images');
const XSS = `<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">`;

/** Names this file's Chromium resolves to the test servers' address: a rebound attacker's name, and a configured one. */
const EVIL = 'evil.example';
const OPS = 'ops.example';

// Without its Local Network Access checks, Chromium lets a page it counts as public fetch 127.0.0.1, as other
// browsers do (and as it does once the user allows the prompt): the rebinding tests then see what the server does.
const browser = useBrowser({ resolve: { [EVIL]: '127.0.0.1', [OPS]: '127.0.0.1' }, localNetworkAccessChecks: false });
const { openPage } = browser;

/** Counts shown in the overview row of a queue. */
async function shownCounts(page: Page, queue: string): Promise<Record<string, number>> {
  const row = page.locator(`tr[data-queue="${queue}"]`);
  const counts: Record<string, number> = {};
  for (const status of ['pending', 'running', 'claimed', 'completed', 'failed', 'cancelled']) {
    counts[status] = Number((await row.locator(`td[data-count="${status}"]`).innerText()).replace(/,/g, ''));
  }
  return counts;
}

/**
 * One request on a connection of its own (no keep-alive pool: a refused request's connection is never reused),
 * failing after 10 s instead of hanging; resolves with the status and the body. `headers.host` replaces the Host
 * header node would send, as a browser under another name would.
 */
function requestOnce(
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body = method === 'POST' ? '{}' : '',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      agent: false,
      timeout: 10_000,
    });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} got no answer in 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

function postOnce(url: string, headers: Record<string, string>, body = '{}'): Promise<{ status: number; body: string }> {
  return requestOnce('POST', url, headers, body);
}

/**
 * The status line of an HTTP/1.0 GET with the Host header `host` (`null`: none at all), written by hand: node's
 * client replaces an empty Host with its own, and HTTP/1.1 requires one.
 */
function rawStatus(url: string, host: string | null): Promise<string> {
  const { hostname, port, pathname } = new URL(url);
  const hostLine = host === null ? '' : `Host: ${host}\r\n`;
  return new Promise((resolve, reject) => {
    // Written, not ended: a server may drop a half-closed connection before a slower answer; 1.0 closes after it.
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${pathname} HTTP/1.0\r\n${hostLine}\r\n`));
    let answer = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error(`GET ${url} without Host got no answer in 10 s`)));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer.split('\r\n')[0]));
    socket.on('error', reject);
  });
}

/** Whether the app's `mail` queue is paused, as QueueAdmin says. */
async function mailPaused(admin: QueueAdmin): Promise<boolean> {
  return (await admin.listQueues()).find((queue) => queue.name === 'mail')?.paused ?? false;
}

/**
 * What a page at `pageUrl` (served by the attacker: intercepted, never asked of the dashboard) can do to the
 * dashboard under its own origin: read the overview and pause `mail` with same-origin fetches, as a page whose
 * name was rebound to the dashboard's address does.
 */
async function fromPageAt(pageUrl: string): Promise<{ read: number; readBody: string; act: number; actBody: string }> {
  const page = await browser.context.newPage();
  try {
    await page.route(pageUrl, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>a page</title>' }),
    );
    await page.goto(pageUrl);
    return await page.evaluate(async () => {
      const read = await fetch('/queues/api/overview');
      const act = await fetch('/queues/api/queues/mail/pause', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return { read: read.status, readBody: await read.text(), act: act.status, actBody: await act.text() };
    });
  } finally {
    await page.close();
  }
}

/** `promise`, or a failure naming `step` after 20 s: a stuck step says which it was. */
function within<T>(step: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`stuck: ${step}`)), 20_000)));
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The library's source files `entry` reaches through relative imports, re-exports, `import()` and `require()`. */
function libraryFilesReachedFrom(entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  while (pending.length) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = resolvePath(dirname(file), fileName);
      const found = [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
      if (found) pending.push(found);
    }
  }
  return reached;
}

/**
 * A script for `page.evaluate` that lists what a text `shown` (a long queue name) makes overflow: the page or a page
 * heading wider than its box, an element showing it past the window's edge or over a third of a wide window's table,
 * or one that cuts it without the whole in a tooltip (a `title` of its own or of an ancestor). A string: the tests compile without DOM types.
 */
function overflowsOf(shown: string): string {
  return `(() => {
    const shown = ${JSON.stringify(shown)};
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push('the page scrolls sideways (' + root.scrollWidth + ' > ' + root.clientWidth + ')');
    for (const heading of document.querySelectorAll('h1')) {
      if (heading.scrollWidth > heading.clientWidth) found.push('h1 "' + heading.textContent + '" overflows');
    }
    for (const element of document.querySelectorAll('main *')) {
      const own = [...element.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent).join('');
      if (!own.includes(shown.slice(0, 40))) continue;
      const box = element.getBoundingClientRect();
      if (box.right > root.clientWidth + 0.5) found.push('<' + element.tagName + '> ends at ' + box.right + ' px');
      // A table of a wide window (a phone's shows a card per row) may scroll in its box, but not for a name.
      if (element.closest('table') && root.clientWidth > 700 && box.width > root.clientWidth / 3) {
        found.push('<' + element.tagName + '> takes ' + box.width + ' px of its table');
      }
      const cut = element.scrollWidth > element.clientWidth && element.clientWidth > 0;
      if (cut && !element.closest('[title="' + shown + '"]')) found.push('<' + element.tagName + '> is cut without the name as its title');
    }
    return found;
  })()`;
}

function screenshotsWanted(backend: Backend, adapter: Adapter): boolean {
  return backend.name === 'better-sqlite3' && adapter === 'express';
}

describeEachBackend(
  'dashboard in a browser',
  (backend) => {
    const adapters: Adapter[] = backend.kind === 'postgres' ? ['express'] : ['express', 'fastify'];
    for (const adapter of adapters) {
      describe(`on ${adapter}`, () => {
        let db: TestDatabase;
        let running: DashboardApp;
        let admin: QueueAdmin;
        let producer: QueueProducer;

        beforeEach(async () => {
          db = await backend.migratedDatabase();
          // The page polls once a second, the shortest interval the option allows (the default is 2 s): a test that
          // waits for the page to show a change the server made (the retried job completed) waits for a poll.
          running = await startDashboardApp(db, adapter, { refreshInterval: 1000 });
          admin = running.app.get(QueueAdmin);
          producer = running.app.get(QueueProducer);
        });
        afterEach(async () => {
          await running?.app.close();
          db?.cleanup();
        });

        it('shows the counts QueueAdmin gives, a failed job with its error, and retries it to completion', async () => {
          const twice = { maxAttempts: 2, backoff: { type: 'fixed' as const, delay: 1 } };
          await producer.addBulk<{ n?: number; fail?: boolean }>('mail', [
            ...Array.from({ length: 6 }, (_, i) => ({ data: { n: i } })),
            { data: { fail: true }, options: twice },
            { data: { fail: true }, options: twice },
          ]);
          await producer.upsertSchedule('other', 'nightly-digest', { cron: '0 3 * * *', data: { kind: 'digest' } });
          await waitFor(
            async () => (await admin.getCounts('mail')).failed === 2 && (await admin.getCounts('mail')).completed === 6,
            'mail settled',
          );
          await admin.pause('other');
          await producer.add('other', { waiting: true });

          const page = await openPage(`${running.url}/queues`);
          await page.locator('tr[data-queue="mail"]').waitFor();
          expect(await shownCounts(page, 'mail')).toEqual(await admin.getCounts('mail'));
          expect(await shownCounts(page, 'other')).toEqual(await admin.getCounts('other'));
          expect(await page.locator('tr[data-queue="other"] .badge.paused').count()).toBe(1);
          if (screenshotsWanted(backend, adapter)) await page.screenshot({ path: join(IMAGES, 'dashboard-overview.png'), fullPage: true });

          // The queue page lists the failed jobs; the job page shows the error with its stack.
          await page.getByRole('link', { name: 'mail', exact: true }).click();
          await page.getByRole('link', { name: /^failed \(2\)$/ }).click();
          const [failed] = await admin.getJobs('mail', { status: 'failed' });
          await page.locator(`tr[data-job="${failed.id}"]`).waitFor();
          // The failed job is also a row of the list shown before the click: wait for the filtered list to replace it.
          await waitFor(async () => (await page.locator('tr[data-job]').count()) === 2, 'the failed tab lists the 2 failed jobs only');
          if (screenshotsWanted(backend, adapter)) await page.screenshot({ path: join(IMAGES, 'dashboard-queue.png'), fullPage: true });
          await page.locator('#queue-jobs').getByRole('link', { name: failed.id, exact: true }).click();
          // Each attempt's error, the last first, with its stack.
          await page.getByRole('heading', { name: 'Attempt 2: Error' }).waitFor();
          await page.getByRole('heading', { name: 'Attempt 1: Error' }).waitFor();
          expect(await page.locator('[data-error-message]').first().innerText()).toContain('SMTP said no <script>');
          expect(await page.getByText('at ').first().count()).toBeGreaterThan(0);
          if (screenshotsWanted(backend, adapter)) await page.screenshot({ path: join(IMAGES, 'dashboard-job.png'), fullPage: true });

          running.behaviour.failing = false;
          await page.getByRole('button', { name: 'Retry' }).click();
          await page.getByRole('status').getByText(`Job ${failed.id} is pending again`).waitFor();
          await page.locator('h1 .badge.completed').waitFor();
          expect((await admin.getJob(failed.id))?.status).toBe('completed');

          await page.goto(`${running.url}/queues#/schedules`);
          await page.locator('tr[data-schedule="other/nightly-digest"]').waitFor();
          if (screenshotsWanted(backend, adapter)) {
            await page.screenshot({ path: join(IMAGES, 'dashboard-schedules.png'), fullPage: true });
            await page.setViewportSize({ width: 390, height: 844 });
            await page.goto(`${running.url}/queues#/`);
            await page.locator('tr[data-queue="mail"]').waitFor();
            await page.screenshot({ path: join(IMAGES, 'dashboard-phone.png'), fullPage: false });
          }
          // A mistyped queue URL: "no such queue", and nothing to act on (an action would have created it).
          await page.goto(`${running.url}/queues#/queue/nope`);
          await page.getByRole('heading', { name: 'No such queue' }).waitFor();
          expect(await page.locator('main button').count()).toBe(0);
          expect((await admin.listQueues()).map((queue) => queue.name)).not.toContain('nope');
          // A hash that is not valid percent-encoding is read as typed (the server's answer shown), not left on "Loading…".
          await page.goto(`${running.url}/queues#/queue/%`);
          await page.getByText('Invalid queue name "%"').first().waitFor();
          await page.close();
        });

        describe('DNS rebinding: only names that cannot be rebound or were configured are answered', () => {
          it('refuses reads and actions under any other Host, in every spelling, and answers loopback names and IP literals', async () => {
            const port = new URL(running.url).port;
            const api = `${running.url}/queues/api/overview`;
            const pause = `${running.url}/queues/api/queues/mail/pause`;
            const json = { 'content-type': 'application/json' };

            // The request: Host and Origin agree (as a rebound page's do), so only the Host can tell.
            const rebound = await postOnce(pause, { ...json, host: `${EVIL}:${port}`, origin: `http://${EVIL}:${port}` });
            expect(rebound.status).toBe(421);
            expect(JSON.parse(rebound.body)).toMatchObject({ message: expect.stringContaining(`allowedHosts: ['${EVIL}']`) });
            const sameSite = { ...json, host: `${EVIL}:${port}`, origin: `http://${EVIL}:${port}`, 'sec-fetch-site': 'same-origin' };
            expect((await postOnce(pause, sameSite)).status).toBe(421);
            expect(await mailPaused(admin)).toBe(false);

            // Reads too: the rebound page is same-origin to the browser, so CORS would let it read the answer.
            const refusedHosts = [
              `${EVIL}:${port}`,
              EVIL,
              `Evil.EXAMPLE:${port}`,
              `${EVIL}.:${port}`,
              `127.0.0.1.${EVIL}:${port}`,
              `localhost.${EVIL}:${port}`,
              `${EVIL}:${port}:${port}`,
              `[::1].${EVIL}:${port}`,
            ];
            for (const host of refusedHosts) {
              const answer = await requestOnce('GET', api, { host });
              expect({ host, status: answer.status }).toEqual({ host, status: 421 });
              expect(answer.body).not.toContain('"mail"');
            }
            for (const route of ['/queues', '/queues/assets/dashboard.js', `/queues/api/queues/mail`, `/queues/api/queue?queue=mail`]) {
              expect(await requestOnce('GET', `${running.url}${route}`, { host: `${EVIL}:${port}` }).then((r) => r.status)).toBe(421);
            }
            // X-Forwarded-Host is anyone's to send: never read.
            expect((await requestOnce('GET', api, { host: `${EVIL}:${port}`, 'x-forwarded-host': `localhost:${port}` })).status).toBe(421);
            expect(await rawStatus(api, null)).toMatch(/^HTTP\/1\.[01] 421 /);
            expect(await rawStatus(api, '')).toMatch(/^HTTP\/1\.[01] 421 /);
            expect(await rawStatus(api, `localhost:${port}`)).toMatch(/^HTTP\/1\.[01] 200 /);

            for (const host of [
              `localhost:${port}`,
              `LocalHost:${port}`,
              `localhost.:${port}`,
              'localhost',
              `[::1]:${port}`,
              `127.0.0.1:${port}`,
              '203.0.113.5',
            ]) {
              const answer = await requestOnce('GET', api, { host });
              expect({ host, status: answer.status }).toEqual({ host, status: 200 });
              expect(answer.body).toContain('"mail"');
            }
            // The Origin check still holds under an answered name.
            expect((await postOnce(pause, { ...json, host: `localhost:${port}`, origin: `http://${EVIL}:${port}` })).status).toBe(403);
            expect(await mailPaused(admin)).toBe(false);
            expect((await postOnce(pause, { ...json, host: `[::1]:${port}`, origin: `http://[::1]:${port}` })).status).toBe(200);
            expect(await mailPaused(admin)).toBe(true);
          });

          it('in Chromium: a page under a name rebound to the server can neither read nor act; the same page under 127.0.0.1 can', async () => {
            const port = new URL(running.url).port;
            await producer.add('mail', { n: 1 });
            const rebound = await fromPageAt(`http://${EVIL}:${port}/rebound`);
            expect(rebound).toMatchObject({ read: 421, act: 421 });
            expect(rebound.readBody).not.toContain('"mail"');
            expect(await mailPaused(admin)).toBe(false);
            // The dashboard's own page under that name is refused as well.
            const page = await browser.context.newPage();
            expect((await page.goto(`http://${EVIL}:${port}/queues`))?.status()).toBe(421);
            await page.close();

            const local = await fromPageAt(`http://127.0.0.1:${port}/not-the-dashboard`);
            expect(local).toMatchObject({ read: 200, act: 200 });
            expect(local.readBody).toContain('"mail"');
            expect(await mailPaused(admin)).toBe(true);
          });

          it('allowedHosts and the hosts of allowedOrigins are answered, in Chromium too; other names still are not', async () => {
            await running.app.close();
            running = await startDashboardApp(db, adapter, { allowedHosts: [OPS], allowedOrigins: ['https://proxy.example'] });
            admin = running.app.get(QueueAdmin);
            const port = new URL(running.url).port;
            const api = `${running.url}/queues/api/overview`;
            for (const host of [`${OPS}:${port}`, `OPS.Example.:${port}`, 'proxy.example']) {
              expect({ host, status: (await requestOnce('GET', api, { host })).status }).toEqual({ host, status: 200 });
            }
            expect((await requestOnce('GET', api, { host: `${EVIL}:${port}` })).status).toBe(421);
            expect((await requestOnce('GET', api, { host: `${EVIL}:${port}`, 'x-forwarded-host': OPS })).status).toBe(421);

            const page = await openPage(`http://${OPS}:${port}/queues`);
            await page.getByRole('button', { name: 'Pause mail' }).click();
            await page.locator('tr[data-queue="mail"] .badge.paused').waitFor();
            expect(await mailPaused(admin)).toBe(true);
            await page.close();
            expect((await fromPageAt(`http://${EVIL}:${port}/rebound`)).read).toBe(421);
          });
        });

        // The rebinding tests above run on every backend, as every security check of the dashboard must, though
        // the guards answer before the storage: a regression that let one backend's mount skip them would show.
        // PostgreSQL stops here: what follows is the HTTP layer and the page, whatever the backend.
        if (backend.kind === 'postgres') return;

        it('a queue name of the longest length fits every page it is shown on, at 390 and 1280 px, its whole in a tooltip where cut', async () => {
          const name = 'billing.invoices.' + 'x'.repeat(111);
          expect(name).toHaveLength(128);
          const job = await producer.add(name, { n: 1 });
          const page = await openPage(`${running.url}/queues`);
          // Each page with what shows that its poll has filled it (a hash change keeps the last page until then).
          const pages: [string, string, string][] = [
            ['overview', `#/`, `tr[data-queue="${name}"]`],
            ['queue', `#/queue/${encodeURIComponent(name)}`, `#queue-jobs tr[data-job="${job.id}"]`],
            ['job', `#/job/${job.id}`, `main p a[href="#/queue/${encodeURIComponent(name)}"]`],
          ];
          const results: string[] = [];
          for (const width of [390, 1280]) {
            await page.setViewportSize({ width, height: 844 });
            for (const [label, hash, filled] of pages) {
              await page.goto(`${running.url}/queues${hash}`);
              await page.locator(filled).first().waitFor();
              const overflows = (await page.evaluate(overflowsOf(name))) as string[];
              results.push(...overflows.map((overflow) => `${label} at ${width} px: ${overflow}`));
            }
          }
          await page.close();
          expect(results).toEqual([]);
        });

        // Fastify's router refuses a path parameter over 100 characters (its default maxParamLength) with a 414 before
        // the dashboard sees it: the page reads and acts on a queue, a job and a schedule with their names in the query.
        it('opens a queue of a 128-character name, pauses it, cancels its job and pauses its schedule from the page', async () => {
          const name = 'tenants.eu-west.' + 'z'.repeat(112);
          expect(name).toHaveLength(128);
          const job = await producer.add(name, { n: 1 }, { delay: 3_600_000 });
          await producer.upsertSchedule(name, 'hourly-sync', { every: 3_600_000 });
          const page = await openPage(`${running.url}/queues#/queue/${encodeURIComponent(name)}`);
          await page.locator(`#queue-jobs tr[data-job="${job.id}"]`).waitFor();
          await page.getByRole('button', { name: 'Pause queue' }).click();
          await page.getByRole('status').getByText(`Queue ${name} paused`).waitFor();
          expect((await admin.listQueues()).find((queue) => queue.name === name)?.paused).toBe(true);

          await page.goto(`${running.url}/queues#/job/${job.id}`);
          await page.getByRole('button', { name: 'Cancel' }).click();
          await page.getByRole('status').getByText(`Job ${job.id} cancelled.`).waitFor();
          await waitFor(async () => (await admin.getJob(job.id))?.status === 'cancelled', 'the job cancelled');

          await page.goto(`${running.url}/queues#/schedules`);
          await page.getByRole('button', { name: `Pause hourly-sync of ${name}` }).click();
          await page.getByRole('status').getByText(`Schedule hourly-sync of ${name} paused`).waitFor();
          expect((await producer.listSchedules()).find((schedule) => schedule.queue === name)?.paused).toBe(true);
          await page.close();
        });

        it('pauses a queue from the page: claims stop until it is resumed', async () => {
          await producer.add('mail', { n: 1 });
          const page = await openPage(`${running.url}/queues`);
          await page.getByRole('button', { name: 'Pause mail' }).click();
          await page.locator('tr[data-queue="mail"] .badge.paused').waitFor();
          expect((await admin.listQueues()).find((queue) => queue.name === 'mail')?.paused).toBe(true);

          const held = await producer.add('mail', { n: 2 });
          const other = await producer.add('other', {});
          // The poller claimed after the enqueue (the other queue's job ran), and left the paused queue's job alone.
          await waitFor(async () => (await admin.getJob(other.id))?.status === 'completed', 'other job done');
          await waitFor(async () => (await admin.getJob(other.id))?.status === 'completed', 'a further round');
          expect((await admin.getJob(held.id))?.status).toBe('pending');

          await page.getByRole('button', { name: 'Resume mail' }).click();
          await page.getByRole('status').getByText('Queue mail resumed.').waitFor();
          await waitFor(async () => (await admin.getJob(held.id))?.status === 'completed', 'held job done after resume');
          await page.close();
        });

        it('retries all failed and cleans finished jobs by age from the queue page, by keyboard', async () => {
          await producer.addBulk<{ n?: number; fail?: boolean }>('mail', [
            { data: { n: 1 } },
            { data: { fail: true } },
            { data: { fail: true } },
          ]);
          await waitFor(async () => (await admin.getCounts('mail')).failed === 2, 'two failed');
          const page = await openPage(`${running.url}/queues#/queue/mail`);
          await page.getByRole('button', { name: 'Retry all failed' }).waitFor();
          // The first Tab reaches the skip link, the next ones the navigation: all of it works without a mouse.
          await page.keyboard.press('Tab');
          expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
          running.behaviour.failing = false;
          await page.getByRole('button', { name: 'Retry all failed' }).focus();
          await page.keyboard.press('Enter');
          await page.getByRole('status').getByText('2 failed job(s) of mail are pending again.').waitFor();
          await waitFor(async () => (await admin.getCounts('mail')).completed === 3, 'all three completed');

          await page.getByLabel('Clean jobs').selectOption('completed');
          await page.getByLabel('finished more than (minutes) ago').fill('0');
          await page.getByRole('button', { name: 'Clean' }).click();
          await page.getByRole('status').getByText('Removed 3 completed job(s) of mail finished more than 0 minute(s) ago.').waitFor();
          expect((await admin.getCounts('mail')).completed).toBe(0);

          // A search by key, through its labelled field.
          const keyed = await producer.add('mail', { n: 2 }, { key: 'invoice-17' });
          await page.getByLabel('Search by id, key or text').fill('invoice-17');
          await page.keyboard.press('Enter');
          await page.locator(`tr[data-job="${keyed.id}"]`).waitFor();
          // The page refreshes itself: the job may show in the unfiltered list first; wait for the search's list.
          await waitFor(async () => (await page.locator('tr[data-job]').count()) === 1, 'the search lists the keyed job only');
          await page.close();
        });

        // The page's own objects keyed by queue name: the same in every run, shown once.
        (screenshotsWanted(backend, adapter) ? it : it.skip)(
          'shows the page of a queue named like a member of Object.prototype (constructor, __proto__) with its tools',
          async () => {
            for (const queue of ['constructor', '__proto__']) await producer.add(queue, { n: 1 });
            const page = await openPage(`${running.url}/queues#/queue/constructor`);
            await within('the clean form of constructor', page.getByRole('button', { name: 'Clean' }).waitFor());
            await page.goto(`${running.url}/queues#/queue/__proto__`);
            await within('the clean form of __proto__', page.getByRole('heading', { name: '__proto__' }).waitFor());
            await within('its clean form', page.getByRole('button', { name: 'Clean' }).waitFor());
            await page.close();
          },
        );

        it('shows a <script> payload as text, never running it', async () => {
          const job = await producer.add('mail', { html: XSS, fail: true }, { key: XSS });
          await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'xss job failed');
          // Listening before the first load: nothing the page does, its icon included, logs an error.
          const page = await browser.context.newPage();
          const logged: string[] = [];
          page.on('console', (message) => void (message.type() === 'error' && logged.push(message.text())));
          page.on('pageerror', (error) => logged.push(error.message));
          await page.goto(`${running.url}/queues#/job/${job.id}`);
          await page.getByRole('heading', { name: /Attempt 1/ }).waitFor();
          expect(await page.locator('main').innerText()).toContain('<script>window.__xss = 1</script>');
          await page.goto(`${running.url}/queues#/queue/mail?search=${encodeURIComponent(XSS)}`);
          await page.locator(`tr[data-job="${job.id}"]`).waitFor();
          expect(await page.evaluate('window.__xss')).toBeUndefined();
          expect(await page.locator('main script, main img').count()).toBe(0);
          await page.goto(`${running.url}/queues`);
          await page.locator('tr[data-queue="mail"]').waitFor();
          expect(logged).toEqual([]);
          await page.close();
        });

        it('refuses actions from another origin (CSRF), and without a JSON body', async () => {
          const pause = `${running.url}/queues/api/queues/mail/pause`;
          const post = async (headers: Record<string, string>) => (await postOnce(pause, headers)).status;
          expect(await post({ 'content-type': 'application/json', origin: 'http://evil.example' })).toBe(403);
          expect(await post({ 'content-type': 'application/json', 'sec-fetch-site': 'cross-site', origin: running.url })).toBe(403);
          expect(await post({ 'content-type': 'application/json' })).toBe(403);
          expect(await post({ 'content-type': 'text/plain', origin: running.url })).toBe(403);
          // The form the page uses, the queue's name in the query, is the same route: refused alike.
          const queryForm = `${running.url}/queues/api/queue/pause?queue=mail`;
          expect((await postOnce(queryForm, { 'content-type': 'application/json', origin: 'http://evil.example' })).status).toBe(403);

          // A page of another origin (another port) sends a no-cors fetch and posts a form at the dashboard; each
          // step has its own deadline so a stuck one names itself.
          const evil: Server = createServer((_request, response) => {
            response.setHeader('content-type', 'text/html');
            response.end(
              `<form method="POST" action="${pause}" enctype="text/plain"><input name='{"a":"' value='"}'>` +
                `<button id="go">go</button></form>`,
            );
          });
          await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
          const refusedPost = (page: Page) =>
            page.waitForResponse((response) => response.url() === pause && response.status() === 403, { timeout: 15_000 });
          try {
            const page = await within('open a page', browser.context.newPage());
            await within('load the other origin', page.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`));
            const fetched = refusedPost(page);
            await within(
              'send a no-cors fetch',
              page.evaluate((url) => void fetch(url, { method: 'POST', mode: 'no-cors', body: '{}' }), pause),
            );
            await within('the fetch refused', fetched);
            const submitted = refusedPost(page);
            await within('submit the form', page.click('#go'));
            await within('the form refused', submitted);
            // A page whose last navigation was the refused form POST sometimes never reports itself closed: ask
            // for the close without waiting on it (the browser goes with the file's afterAll).
            await within('close the page', page.close({ runBeforeUnload: true }));
          } finally {
            evil.closeAllConnections();
            evil.close();
          }
          expect((await admin.listQueues()).find((queue) => queue.name === 'mail')?.paused ?? false).toBe(false);
          expect(await post({ 'content-type': 'application/json', origin: running.url })).toBe(200);
          expect((await admin.listQueues()).find((queue) => queue.name === 'mail')?.paused).toBe(true);
        });
      });
    }
  },
  ['better-sqlite3', 'postgres'],
);

describeEachBackend(
  'dashboard options',
  (backend) => {
    let db: TestDatabase;
    let running: DashboardApp | undefined;
    beforeEach(async () => (db = await backend.migratedDatabase()));
    afterEach(async () => {
      await running?.app.close();
      running = undefined;
      db.cleanup();
    });

    it('readOnly: no action on the page, and every action refused', async () => {
      running = await startDashboardApp(db, 'fastify', { readOnly: true });
      const producer = running.app.get(QueueProducer);
      const job = await producer.add('mail', { fail: true });
      const admin = running.app.get(QueueAdmin);
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'failed');
      const page = await openPage(`${running.url}/queues#/job/${job.id}`);
      await page.getByRole('heading', { name: /Attempt 1/ }).waitFor();
      expect(await page.getByRole('button').count()).toBe(0);
      await page.goto(`${running.url}/queues#/`);
      await page.locator('tr[data-queue="mail"]').waitFor();
      expect(await page.getByRole('button').count()).toBe(0);
      expect(await page.locator('#live').innerText()).toContain('read-only');
      await page.close();
      const answer = await postOnce(`${running.url}/queues/api/jobs/${job.id}/retry`, {
        'content-type': 'application/json',
        origin: running.url,
      });
      expect(answer.status).toBe(403);
      expect((JSON.parse(answer.body) as { message: string }).message).toContain('read-only');
      expect((await admin.getJob(job.id))?.status).toBe('failed');
    });

    it("guards: the app's guard classes and a function decide every request", async () => {
      @Injectable()
      class TokenGuard implements CanActivate {
        canActivate(context: ExecutionContext): boolean {
          return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-token'] === 'open';
        }
      }
      running = await startDashboardApp(db, 'express', {
        guards: [TokenGuard],
        authorize: (request) => (request as { headers: Record<string, string> }).headers['x-user'] === 'ops',
      });
      const get = (headers: Record<string, string>) => fetch(`${running!.url}/queues/api/overview`, { headers }).then((r) => r.status);
      expect(await get({})).toBe(403);
      expect(await get({ 'x-token': 'open' })).toBe(403);
      expect(await get({ 'x-token': 'open', 'x-user': 'ops' })).toBe(200);
      expect(await fetch(`${running.url}/queues`).then((r) => r.status)).toBe(403);
    });

    it.each(['express', 'fastify'] as const)('follows the app global prefix on %s', async (adapter) => {
      running = await startDashboardApp(db, adapter, {}, [], (app) => app.setGlobalPrefix('ops'));
      const html = await fetch(`${running.url}/ops/queues`).then((r) => r.text());
      expect(html).toMatch(/src="\/ops\/queues\/assets\/dashboard\.[0-9a-f]{16}\.js"/);
      expect(await fetch(`${running.url}/queues`).then((r) => r.status)).toBe(404);
      const page = await openPage(`${running.url}/ops/queues`);
      await page.locator('tr[data-queue="mail"]').waitFor();
      await page.close();
    });

    it('redact: data hidden, result rewritten, before they leave the server', async () => {
      running = await startDashboardApp(db, 'express', {
        redact: { data: true, result: (value) => ({ ...(value as object), id: '***' }) },
      });
      const admin = running.app.get(QueueAdmin);
      const job = await running.app.get(QueueProducer).add('mail', { secret: 'hunter2' }, { key: 'hunter2-invoice' });
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'done');
      const text = await fetch(`${running.url}/queues/api/jobs/${job.id}`).then((r) => r.text());
      expect(text).not.toContain('hunter2');
      // A data rule hides the key (and progress: this job reported none) too, unless they have rules of their own.
      expect(JSON.parse(text)).toMatchObject({
        hidden: ['data', 'key'],
        job: { data: null, key: null, result: { sent: true, id: '***' } },
      });
      const page = await openPage(`${running.url}/queues#/job/${job.id}`);
      await page.getByRole('heading', { name: 'Result' }).waitFor();
      expect(await page.getByText("Hidden by the dashboard's redact option.").count()).toBe(1);
      expect(await page.locator('dl.fields').first().innerText()).toMatch(/Key\s+hidden/);
      await page.goto(`${running.url}/queues#/queue/mail`);
      await page.locator(`tr[data-job="${job.id}"] td[data-label="Key"]`).getByText('hidden').waitFor();
      expect(await page.locator('main').innerText()).not.toContain('hunter2');
      await page.close();
    });

    it('nothing is mounted without the module, and the main entry never loads it', async () => {
      running = await startDashboardApp(db, 'express', null);
      expect(await fetch(`${running.url}/queues`).then((r) => r.status)).toBe(404);
      // Every module lib/index.ts can load (its imports, re-exports and requires, followed through the repository's
      // files): none is the dashboard's. Read from the source, where a child process transpiling the library to
      // look at its require cache took over a minute of this file's time on a loaded machine.
      const reached = libraryFilesReachedFrom(join(__dirname, '..', 'lib', 'index.ts'));
      expect(reached.size).toBeGreaterThan(100);
      expect([...reached].filter((file) => /lib[\\/]dashboard/.test(file))).toEqual([]);
    });
  },
  ['better-sqlite3'],
);
