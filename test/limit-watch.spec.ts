/**
 * What the poller remembers about limited queues: a queue known closed stays out of claims until it opens, and a
 * rate-limited queue that came back short is read at most once per check gap (10 to 100 ms, a tenth of its window).
 */
import { LimitWatch } from '../lib/poller/limit-watch';

describe('LimitWatch', () => {
  const durations: Record<string, number> = { mail: 1000, fast: 50 };
  const watch = () => new LimitWatch((queue) => durations[queue]);

  it('keeps a queue closed until its time, keeping the later of two closings', () => {
    const limits = watch();
    limits.close('mail', 2000);
    limits.close('mail', 1500);
    expect(limits.isClosed('mail', 1999)).toBe(true);
    expect(limits.isClosed('mail', 2000)).toBe(false);
    expect(limits.isClosed('other', 0)).toBe(false);
  });

  it('asks about rate-limited queues that came back short, at most once per check gap', () => {
    const limits = watch();
    const requests = [
      { queue: 'mail', limit: 10, rateLimited: true },
      { queue: 'fast', limit: 10, rateLimited: true },
      { queue: 'plain', limit: 10 },
      { queue: 'global', limit: 10, globalConcurrency: 3 },
    ];
    const claimed = new Map([['fast', 10]]);
    // `fast` got all it asked for; `plain` and `global` have no limiter: only `mail` is asked about.
    expect(limits.toCheck(requests, claimed, 1000)).toEqual(['mail']);
    // mail's gap is 100 ms (a tenth of 1 s).
    expect(limits.toCheck(requests, claimed, 1099)).toEqual([]);
    expect(limits.toCheck(requests, claimed, 1100)).toEqual(['mail']);
    // fast's gap is the 10 ms floor.
    const short = new Map<string, number>();
    expect(limits.toCheck(requests, short, 2000)).toEqual(['mail', 'fast']);
    expect(limits.toCheck(requests, short, 2010)).toEqual(['fast']);
  });
});
