import { InvalidJobResultError } from '../lib/errors/invalid-job-result.error';
import { UnrecoverableError } from '../lib/errors/unrecoverable.error';
import { BackoffOptions } from '../lib/interfaces/backoff-options.interface';
import { backoffOf, decideRetry, isUnrecoverable } from '../lib/worker/retry-policy';

const NOW = 1_700_000_000_000;
const queueBackoff: BackoffOptions = { type: 'fixed', delay: 5_000 };

function attempt(attempts: number, maxAttempts = 3, backoff: string | null = null) {
  return { attempts, maxAttempts, backoff };
}

describe('retry policy (unit): what follows a failed attempt', () => {
  it('retries an ordinary error with attempts left, due `delay` ms after the given clock', () => {
    expect(decideRetry(attempt(1), new Error('boom'), queueBackoff, NOW)).toEqual({
      kind: 'retry',
      delay: 5_000,
      runAt: NOW + 5_000,
      storedBackoffInvalid: false,
    });
  });

  it('fails for good on the last allowed attempt, whatever was thrown', () => {
    expect(decideRetry(attempt(3), new Error('boom'), queueBackoff, NOW)).toEqual({ kind: 'fail' });
    expect(decideRetry(attempt(4), 'a string', queueBackoff, NOW)).toEqual({ kind: 'fail' });
  });

  it('fails for good on UnrecoverableError and InvalidJobResultError, even with attempts left', () => {
    expect(decideRetry(attempt(1), new UnrecoverableError('stop'), queueBackoff, NOW)).toEqual({ kind: 'fail' });
    const invalid = new InvalidJobResultError('1', 'q', 'result.when', 'a Date does not survive JSON');
    expect(decideRetry(attempt(1), invalid, queueBackoff, NOW)).toEqual({ kind: 'fail' });
  });

  it('retries any other thrown value, even a Proxy whose traps throw', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(isUnrecoverable(hostile)).toBe(false);
    for (const thrown of [undefined, null, 42, 'text', hostile]) {
      expect(decideRetry(attempt(1), thrown, queueBackoff, NOW).kind).toBe('retry');
    }
  });

  it("uses the job's own stored backoff over the queue's, exponential per attempt, jitter from the given random", () => {
    const stored = JSON.stringify({ type: 'exponential', delay: 100 });
    expect(decideRetry(attempt(1, 5, stored), new Error('x'), queueBackoff, NOW)).toMatchObject({ delay: 100, runAt: NOW + 100 });
    expect(decideRetry(attempt(3, 5, stored), new Error('x'), queueBackoff, NOW)).toMatchObject({ delay: 400, runAt: NOW + 400 });
    const jittered = JSON.stringify({ type: 'fixed', delay: 1_000, jitter: true });
    expect(decideRetry(attempt(1, 5, jittered), new Error('x'), queueBackoff, NOW, () => 0)).toMatchObject({ delay: 500 });
    expect(decideRetry(attempt(1, 5, jittered), new Error('x'), queueBackoff, NOW, () => 1)).toMatchObject({ delay: 1_000 });
  });

  it("falls back to the queue's backoff when the stored one cannot be read, and says so", () => {
    for (const stored of ['not json', '{"type":"linear","delay":1}', 'null', '{"type":"fixed","delay":-1}']) {
      expect(backoffOf({ backoff: stored }, queueBackoff)).toEqual({ backoff: queueBackoff, storedInvalid: true });
      expect(decideRetry(attempt(1, 3, stored), new Error('x'), queueBackoff, NOW)).toEqual({
        kind: 'retry',
        delay: 5_000,
        runAt: NOW + 5_000,
        storedBackoffInvalid: true,
      });
    }
    expect(backoffOf({ backoff: null }, queueBackoff)).toEqual({ backoff: queueBackoff, storedInvalid: false });
  });
});
