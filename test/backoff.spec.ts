/** Unit tests of the backoff formula and its validation (lib/utils/backoff.util.ts). */
import { DEFAULT_BACKOFF, DEFAULT_MAX_EXPONENTIAL_DELAY, MAX_RETRY_DELAY } from '../lib/module-defaults.constants';
import { backoffDelay, backoffProblem } from '../lib/utils/backoff.util';

describe('backoffDelay', () => {
  it('fixed: the same delay after every attempt', () => {
    for (const attempt of [1, 2, 3, 10, 100]) expect(backoffDelay({ type: 'fixed', delay: 250 }, attempt)).toBe(250);
  });

  it('exponential: delay * 2^(attempt - 1)', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay({ type: 'exponential', delay: 100 }, attempt))).toEqual([
      100, 200, 400, 800, 1600,
    ]);
  });

  it('exponential: capped by maxDelay, and by one hour without it', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay({ type: 'exponential', delay: 100, maxDelay: 300 }, attempt))).toEqual([
      100, 200, 300, 300,
    ]);
    expect(backoffDelay({ type: 'exponential', delay: 1000 }, 30)).toBe(DEFAULT_MAX_EXPONENTIAL_DELAY);
    expect(DEFAULT_MAX_EXPONENTIAL_DELAY).toBe(3_600_000);
  });

  it('fixed: maxDelay caps it too, and there is no default cap', () => {
    expect(backoffDelay({ type: 'fixed', delay: 500, maxDelay: 200 }, 1)).toBe(200);
    expect(backoffDelay({ type: 'fixed', delay: 10 * DEFAULT_MAX_EXPONENTIAL_DELAY }, 1)).toBe(10 * DEFAULT_MAX_EXPONENTIAL_DELAY);
  });

  it('stays finite for huge attempt numbers (no overflow to Infinity or NaN)', () => {
    for (const attempt of [60, 1000, 1e6, Number.MAX_SAFE_INTEGER]) {
      const delay = backoffDelay({ type: 'exponential', delay: 1 }, attempt);
      expect(Number.isFinite(delay)).toBe(true);
      expect(delay).toBe(DEFAULT_MAX_EXPONENTIAL_DELAY);
    }
    expect(backoffDelay({ type: 'exponential', delay: 1, maxDelay: Number.MAX_SAFE_INTEGER }, 10_000)).toBe(MAX_RETRY_DELAY);
  });

  it('never exceeds MAX_RETRY_DELAY (365 days), so now + delay is a date JavaScript and both databases hold', () => {
    expect(MAX_RETRY_DELAY).toBe(365 * 24 * 3_600_000);
    const absurd = [
      backoffDelay({ type: 'fixed', delay: 1e300 }, 1),
      backoffDelay({ type: 'fixed', delay: Number.MAX_VALUE, jitter: true }, 1, () => 0.999999),
      backoffDelay({ type: 'exponential', delay: 1e12, maxDelay: 1e300 }, 40),
      backoffDelay({ type: 'exponential', delay: 1e300, maxDelay: Number.MAX_VALUE }, 1),
    ];
    for (const delay of absurd) {
      expect(delay).toBeLessThanOrEqual(MAX_RETRY_DELAY);
      expect(delay).toBeGreaterThan(0);
      expect(Number.isNaN(new Date(Date.now() + delay).getTime())).toBe(false);
    }
    expect(backoffDelay({ type: 'fixed', delay: 1e300 }, 1)).toBe(MAX_RETRY_DELAY);
    // Values no validation lets through still give a usable delay: NaN waits the longest, negative waits none.
    expect(backoffDelay({ type: 'fixed', delay: NaN }, 1)).toBe(MAX_RETRY_DELAY);
    expect(backoffDelay({ type: 'fixed', delay: -5 }, 1)).toBe(0);
  });

  it('treats attempt 0 or less like attempt 1', () => {
    expect(backoffDelay({ type: 'exponential', delay: 100 }, 0)).toBe(100);
    expect(backoffDelay({ type: 'exponential', delay: 100 }, -5)).toBe(100);
  });

  it('a zero delay is zero, with or without jitter', () => {
    expect(backoffDelay({ type: 'exponential', delay: 0 }, 5)).toBe(0);
    expect(backoffDelay({ type: 'fixed', delay: 0, jitter: true }, 1, () => 0.7)).toBe(0);
  });

  it('jitter: draws uniformly from [delay / 2, delay] of the capped delay', () => {
    const backoff = { type: 'exponential' as const, delay: 100, maxDelay: 1000, jitter: true };
    expect(backoffDelay(backoff, 3, () => 0)).toBe(200);
    expect(backoffDelay(backoff, 3, () => 0.5)).toBe(300);
    expect(backoffDelay(backoff, 3, () => 0.999999)).toBe(400);
    expect(backoffDelay(backoff, 10, () => 0)).toBe(500); // half of the cap, not of 51,200
    expect(backoffDelay(backoff, 10, () => 0.999999)).toBe(1000);
  });

  it('jitter with the real random source stays in range, and spreads', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const delay = backoffDelay({ type: 'fixed', delay: 1000, jitter: true }, 1);
      expect(delay).toBeGreaterThanOrEqual(500);
      expect(delay).toBeLessThanOrEqual(1000);
      expect(Number.isInteger(delay)).toBe(true);
      seen.add(delay);
    }
    expect(seen.size).toBeGreaterThan(50);
  });

  it('without jitter never calls the random source', () => {
    const random = jest.fn(() => 0.5);
    backoffDelay({ type: 'exponential', delay: 100 }, 2, random);
    backoffDelay({ type: 'fixed', delay: 100, jitter: false }, 2, random);
    expect(random).not.toHaveBeenCalled();
  });

  it('returns whole milliseconds', () => {
    expect(backoffDelay({ type: 'fixed', delay: 10.4 }, 1)).toBe(10);
    expect(backoffDelay({ type: 'fixed', delay: 3, jitter: true }, 1, () => 0.3)).toBe(Math.round(1.5 + 0.3 * 1.5));
  });
});

describe('backoffProblem', () => {
  it('accepts valid backoffs, including the default one', () => {
    expect(backoffProblem(DEFAULT_BACKOFF)).toBeNull();
    expect(backoffProblem({ type: 'fixed', delay: 0 })).toBeNull();
    expect(backoffProblem({ type: 'exponential', delay: 10, maxDelay: 0, jitter: false })).toBeNull();
    expect(backoffProblem({ type: 'exponential', delay: 10, maxDelay: undefined, jitter: undefined })).toBeNull();
  });

  it.each<[string, unknown, RegExp]>([
    ['undefined', undefined, /must be an object/],
    ['null', null, /must be an object/],
    ['a string', 'exponential', /must be an object/],
    ['a number', 1000, /must be an object/],
    ['an unknown type', { type: 'linear', delay: 1 }, /type must be 'fixed' or 'exponential'/],
    ['no type', { delay: 1 }, /type must be/],
    ['no delay', { type: 'fixed' }, /delay must be a number of ms from 0 to/],
    ['a delay past 100 years', { type: 'fixed', delay: 1e16 }, /delay must be a number of ms from 0 to 3155760000000/],
    ['a maxDelay past 100 years', { type: 'exponential', delay: 1, maxDelay: Number.MAX_VALUE }, /maxDelay must be/],
    ['a negative delay', { type: 'fixed', delay: -1 }, /delay must be/],
    ['a NaN delay', { type: 'fixed', delay: NaN }, /delay must be/],
    ['an infinite delay', { type: 'exponential', delay: Infinity }, /delay must be/],
    ['a string delay', { type: 'fixed', delay: '10' }, /delay must be/],
    ['a negative maxDelay', { type: 'exponential', delay: 1, maxDelay: -1 }, /maxDelay must be/],
    ['an infinite maxDelay', { type: 'exponential', delay: 1, maxDelay: Infinity }, /maxDelay must be/],
    ['a string jitter', { type: 'exponential', delay: 1, jitter: 'true' }, /jitter must be a boolean/],
    ['a numeric jitter', { type: 'exponential', delay: 1, jitter: 1 }, /jitter must be a boolean/],
  ])('refuses %s', (_case, backoff, reason) => {
    expect(backoffProblem(backoff)).toMatch(reason);
  });
});
