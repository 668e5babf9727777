/** Unit tests of how one job's data and options become a row (lib/producer/prepare-job.ts). */
import { InvalidJobDataError, InvalidJobOptionsError } from '../lib';
import { prepareJob } from '../lib/producer/prepare-job';
import { MAX_TIMER_MS } from '../lib/utils/validation.util';

const NOW = 1_700_000_000_000;
const defaults = { maxAttempts: 3 };

describe('prepareJob', () => {
  it('without options: due now, priority 0, the default attempts, nothing else', () => {
    expect(prepareJob('q', { a: 1 }, undefined, defaults, NOW)).toEqual({
      data: '{"a":1}',
      priority: 0,
      runAt: NOW,
      maxAttempts: 3,
      backoff: null,
      timeout: null,
      key: null,
      name: null,
      removeOn: null,
      group: null,
    });
  });

  it('delay and runAt: the later wins; delays are whole ms', () => {
    expect(prepareJob('q', 1, { delay: 500 }, defaults, NOW).runAt).toBe(NOW + 500);
    expect(prepareJob('q', 1, { delay: 0.6 }, defaults, NOW).runAt).toBe(NOW + 1);
    expect(prepareJob('q', 1, { runAt: new Date(NOW + 2000) }, defaults, NOW).runAt).toBe(NOW + 2000);
    expect(prepareJob('q', 1, { runAt: new Date(NOW + 2000), delay: 5000 }, defaults, NOW).runAt).toBe(NOW + 5000);
    expect(prepareJob('q', 1, { runAt: new Date(NOW + 9000), delay: 5000 }, defaults, NOW).runAt).toBe(NOW + 9000);
    expect(prepareJob('q', 1, { runAt: new Date(NOW - 60_000) }, defaults, NOW).runAt).toBe(NOW); // a past runAt is due now
  });

  it('keeps every option it is given', () => {
    const backoff = { type: 'exponential' as const, delay: 100, maxDelay: 1000, jitter: true };
    const options = {
      priority: 7,
      maxAttempts: 9,
      timeout: 1234,
      backoff,
      key: 'k',
      name: 'n',
      removeOnComplete: true,
      removeOnFail: true,
      group: 'tenant-42',
    };
    expect(prepareJob('q', 'x', options, defaults, NOW)).toEqual({
      data: '"x"',
      priority: 7,
      runAt: NOW,
      maxAttempts: 9,
      backoff: JSON.stringify(backoff),
      timeout: 1234,
      key: 'k',
      name: 'n',
      removeOn: 3,
      group: 'tenant-42',
    });
  });

  it('accepts the largest timeout a timer can wait, and not one more', () => {
    expect(prepareJob('q', 1, { timeout: MAX_TIMER_MS }, defaults, NOW).timeout).toBe(MAX_TIMER_MS);
    expect(() => prepareJob('q', 1, { timeout: MAX_TIMER_MS + 1 }, defaults, NOW)).toThrow(InvalidJobOptionsError);
  });

  it('names the offending option with the label of a bulk item', () => {
    let error: unknown;
    try {
      prepareJob('q', 1, { priority: -1 }, defaults, NOW, 'items[4].');
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidJobOptionsError);
    expect((error as InvalidJobOptionsError).option).toBe('items[4].priority');
  });

  it('checks data before options, and names the data path', () => {
    expect(() => prepareJob('q', { a: [1, { b: undefined }] }, { delay: -1 }, defaults, NOW)).toThrow(InvalidJobDataError);
    expect(() => prepareJob('q', { a: [1, { b: undefined }] }, undefined, defaults, NOW)).toThrow(/data\.a\[1\]\.b/);
  });

  it('refuses options that are not an object, an empty array included (it has no key to refuse)', () => {
    for (const options of [[], [1], 'x', 5, true]) {
      expect(() => prepareJob('q', 1, options as never, defaults, NOW)).toThrow(InvalidJobOptionsError);
      expect(() => prepareJob('q', 1, options as never, defaults, NOW)).toThrow(/options for queue "q": must be an object/);
    }
  });

  it('null options mean no options', () => {
    expect(prepareJob('q', 1, null as never, defaults, NOW).runAt).toBe(NOW);
  });
});
