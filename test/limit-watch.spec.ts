/**
 * What the poller remembers about limited queues: a queue known closed stays out of claims until it opens, and a
 * rate-limited queue that came back short is read at most once per check gap (10 to 100 ms, a tenth of its window),
 * and not at all once a read found it drained, until a claim brings one of its jobs again. A short queue read too
 * recently is due a read once its gap has passed, and the poller is told when, to come back then. The poller's second
 * watch, of queues with a group limiter, asks no more before the time its last answer named.
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
    expect(limits.toCheck(requests, claimed, 1000).ask).toEqual(['mail']);
    // mail's gap is 100 ms (a tenth of 1 s).
    expect(limits.toCheck(requests, claimed, 1099).ask).toEqual([]);
    expect(limits.toCheck(requests, claimed, 1100).ask).toEqual(['mail']);
    // fast's gap is the 10 ms floor.
    const short = new Map<string, number>();
    expect(limits.toCheck(requests, short, 2000).ask).toEqual(['mail', 'fast']);
    expect(limits.toCheck(requests, short, 2010).ask).toEqual(['fast']);
  });

  it('says when a short queue read too recently may be asked about again, so the poller comes back then', () => {
    const limits = watch();
    const requests = [
      { queue: 'mail', limit: 10, rateLimited: true },
      { queue: 'fast', limit: 10, rateLimited: true },
    ];
    const none = new Map<string, number>();
    expect(limits.toCheck(requests, none, 1000)).toEqual({ ask: ['mail', 'fast'] });
    // Both short again within their gaps (mail 100 ms, fast 10 ms): the earliest is fast's.
    expect(limits.toCheck(requests, new Map([['mail', 3]]), 1005)).toEqual({ ask: [], askAgainAt: 1010 });
    expect(limits.toCheck(requests, none, 1010)).toEqual({ ask: ['fast'], askAgainAt: 1100 });
    // A drained queue and one that got all it asked for are not waited for.
    limits.open('fast', 1011);
    expect(limits.toCheck(requests, new Map([['mail', 10]]), 1020)).toEqual({ ask: [] });
  });

  it('stops asking about a queue a read found open (drained) until a claim brings one of its jobs', () => {
    const limits = watch();
    const requests = [{ queue: 'mail', limit: 10, rateLimited: true }];
    const none = new Map<string, number>();
    expect(limits.toCheck(requests, none, 1000).ask).toEqual(['mail']);
    limits.open('mail', 1001);
    // Idle: every later round comes back empty, and none of them reads.
    expect(limits.toCheck(requests, none, 1200).ask).toEqual([]);
    expect(limits.toCheck(requests, none, 5000).ask).toEqual([]);
    // Jobs came: the round that got some clears the mark, and a short round after it is asked about again.
    expect(limits.toCheck(requests, new Map([['mail', 4]]), 6000).ask).toEqual(['mail']);
    expect(limits.toCheck(requests, none, 6100).ask).toEqual(['mail']);
  });

  it('reads at once when jobs of a queue found drained come back short, however recent that read', () => {
    const limits = watch();
    const requests = [{ queue: 'mail', limit: 10, rateLimited: true }];
    // The boot claim ran before the first jobs were added: the read finds the queue empty and open.
    expect(limits.toCheck(requests, new Map(), 1000).ask).toEqual(['mail']);
    limits.open('mail', 1000);
    // 5 ms later a claim gets 2 of 10 (the window allows 2): the old read says nothing of that window.
    expect(limits.toCheck(requests, new Map([['mail', 2]]), 1005).ask).toEqual(['mail']);
    // Still at most one read per gap after that.
    expect(limits.toCheck(requests, new Map(), 1010)).toEqual({ ask: [], askAgainAt: 1105 });
  });

  it('does not take a late answer for a drained queue when a claim brought its jobs after the read was asked for', () => {
    const limits = watch();
    const requests = [{ queue: 'mail', limit: 10, rateLimited: true }];
    expect(limits.toCheck(requests, new Map(), 1000).ask).toEqual(['mail']);
    // The read was asked at 1001; a round at 1050 got jobs; the answer (open) arrives after it.
    expect(limits.toCheck(requests, new Map([['mail', 10]]), 1050).ask).toEqual([]);
    limits.open('mail', 1001);
    expect(limits.toCheck(requests, new Map(), 1200).ask).toEqual(['mail']);
  });

  it('as the group watch: asks about queues with a group limiter, and not again before the time its last answer named', () => {
    const limits = new LimitWatch(
      (queue) => durations[queue],
      (request) => request.groupRateLimited === true,
    );
    const requests = [
      { queue: 'mail', limit: 10, grouped: true, groupRateLimited: true },
      { queue: 'fast', limit: 10, rateLimited: true },
    ];
    const short = new Map<string, number>();
    expect(limits.toCheck(requests, short, 1000).ask).toEqual(['mail']);
    // The answer: mail's first held-back group opens at 5000. Short rounds before then ask nothing, and say when to come back.
    limits.close('mail', 5000);
    expect(limits.toCheck(requests, short, 1200)).toEqual({ ask: [], askAgainAt: 5000 });
    expect(limits.toCheck(requests, short, 5000).ask).toEqual(['mail']);
  });
});
