/**
 * The headless Chromium the dashboard tests drive: Debian's `chromium` package (CI's .ci/run installs it), never a
 * downloaded browser. A missing binary fails the tests loudly: a browser test that skips itself proves nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, Page, chromium } from 'playwright-core';

/** Where Debian puts it; QUEUE_TEST_CHROMIUM overrides. */
export const CHROMIUM_PATH = process.env.QUEUE_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for a quiet, offline-friendly run as root in CI. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with a fresh profile of its own; `close()` ends it and removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** What `launchChromium` may change for one test file. */
export interface LaunchOptions {
  /**
   * Names Chromium resolves to an address without asking DNS (`--host-resolver-rules`), e.g. `{ 'evil.example':
   * '127.0.0.1' }`: a page under that name reaches a local server as a DNS-rebound page of another site would.
   */
  resolve?: Record<string, string>;
  /**
   * `false` turns off Chromium's Local Network Access checks, which block a page of a public address from
   * fetching a loopback or private one (a page fulfilled by `page.route` counts as public): the browser then
   * behaves as Firefox, Safari and older Chromium do, where only the server can refuse such a request.
   */
  localNetworkAccessChecks?: boolean;
}

export async function launchChromium(options: LaunchOptions = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install -y chromium), as .ci/run does`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      ...ARGS,
      ...resolverRules(options.resolve ?? {}),
      ...(options.localNetworkAccessChecks === false ? ['--disable-features=LocalNetworkAccessChecks'] : []),
    ],
    viewport: { width: 1280, height: 900 },
  });
  // Every action and wait has a deadline well inside jest's, so a stuck step fails naming itself.
  context.setDefaultTimeout(20_000);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

function resolverRules(resolve: Record<string, string>): string[] {
  const rules = Object.entries(resolve).map(([name, address]) => `MAP ${name} ${address}`);
  return rules.length === 0 ? [] : [`--host-resolver-rules=${rules.join(', ')}`];
}

/** The file's one browser (`useBrowser`): its context, and new pages of it. */
export interface FileBrowser {
  /** The context of the file's browser, once `beforeAll` launched it. */
  readonly context: BrowserContext;
  /**
   * A new page of the file's browser at `url`, its confirmation dialogs accepted (or dismissed): the page is the
   * test's to close; the browser goes with the file.
   */
  openPage(url: string, dialogs?: 'accept' | 'dismiss'): Promise<Page>;
}

/**
 * One Chromium for the whole test file, launched in its `beforeAll` and closed in its `afterAll` (a launch costs
 * about a second on a loaded machine, a new page a few milliseconds): what every dashboard test file used to set
 * up by hand, each with its own copy of `openPage`.
 */
export function useBrowser(options: LaunchOptions = {}): FileBrowser {
  let browser: TestBrowser | undefined;
  beforeAll(async () => {
    browser = await launchChromium(options);
  });
  afterAll(async () => {
    await browser?.close();
  });
  const context = (): BrowserContext => {
    if (!browser) throw new Error('useBrowser: the browser is launched in beforeAll; use it inside a test or a hook');
    return browser.context;
  };
  return {
    get context() {
      return context();
    },
    async openPage(url, dialogs = 'accept') {
      const page = await context().newPage();
      page.on('dialog', (dialog) => void (dialogs === 'accept' ? dialog.accept() : dialog.dismiss()));
      await page.goto(url);
      return page;
    },
  };
}
