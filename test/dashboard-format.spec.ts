/**
 * The dashboard's browser formatting (lib/dashboard/browser/format.browser.ts), run as the page runs it: the file
 * is one of the page script's global-scope files, so it is transpiled alone and evaluated in a context of its own,
 * its functions read from that context. Only what needs no DOM is called here; the rest is in the Chromium tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import * as ts from 'typescript';

const SOURCE = join(__dirname, '..', 'lib', 'dashboard', 'browser', 'format.browser.ts');

interface Format {
  relative(date: Date): string;
}

function loadFormat(): Format {
  const js = ts.transpileModule(readFileSync(SOURCE, 'utf8'), { compilerOptions: { target: ts.ScriptTarget.ES2020 } }).outputText;
  // This realm's Date, jest's fake clock once it is installed: the page's clock is the test's.
  return runInNewContext(`${js}\n({ relative })`, { Date }) as Format;
}

describe('dashboard format: relative()', () => {
  const NOW = Date.parse('2030-06-01T12:00:00.000Z');
  let format: Format;

  beforeEach(() => {
    jest.useFakeTimers({ now: NOW });
    format = loadFormat();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('says "now" within half a second either way, not "in 0 s" for a time just past', () => {
    expect(format.relative(new Date(NOW - 300))).toBe('now');
    expect(format.relative(new Date(NOW - 1))).toBe('now');
    expect(format.relative(new Date(NOW))).toBe('now');
    expect(format.relative(new Date(NOW + 300))).toBe('now');
  });

  it.each([
    [-2_000, '2 s ago'],
    [5_000, 'in 5 s'],
    [-90_000, '2 min ago'],
    [45 * 60_000, 'in 45 min'],
    [-3 * 3_600_000, '3 h ago'],
    [2 * 86_400_000, 'in 2 d'],
    [-20_790 * 86_400_000, '20790 d ago'],
  ])('%d ms from now reads %s', (offset, text) => {
    expect(format.relative(new Date(NOW + offset))).toBe(text);
  });
});
