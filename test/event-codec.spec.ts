/**
 * The stored format of cluster events: what a publisher writes, a reader gets back (dates revived, large results
 * left out), and batches written in the first format by earlier builds still read.
 */
import { QueueEvent } from '../lib';
import { MAX_EVENT_PAYLOAD, decodeEvents, encodeEvents } from '../lib/events/event-codec';

describe('event codec', () => {
  const t = new Date('2026-11-30T12:00:00.000Z');
  const later = new Date(t.getTime() + 1234);

  it('round-trips a batch of mixed events, queues and ids, reviving dates and marking the origin', () => {
    const events = [
      { type: 'added', queue: 'email', jobId: '17', attempt: 0, timestamp: t, runAt: later },
      { type: 'active', queue: 'email', jobId: '17', attempt: 1, timestamp: later },
      {
        type: 'retrying',
        queue: 'odd "queue"',
        jobId: 'not-a-number',
        attempt: 1,
        timestamp: t,
        error: { message: 'x' },
        nextRunAt: later,
      },
      { type: 'completed', queue: 'email', jobId: '17', attempt: 1, timestamp: later, result: { ok: [1, 2] } },
      { type: 'completed', queue: 'email', jobId: '18', attempt: 1, timestamp: later, result: undefined },
    ] as QueueEvent[];
    const decoded = decodeEvents(encodeEvents(events), 'node-a');
    expect(decoded).toEqual(events.map((event) => ({ ...event, origin: 'node-a' })));
    expect((decoded[0] as { runAt: Date }).runAt).toBeInstanceOf(Date);
  });

  it('writes about half the bytes of one JSON array per event', () => {
    const events = Array.from({ length: 300 }, (_, n) => ({
      type: 'active',
      queue: 'email',
      jobId: String(100000 + n),
      attempt: 1,
      timestamp: t,
    })) as QueueEvent[];
    const firstFormat = JSON.stringify(events.map((e) => [e.type, e.queue, e.jobId, e.attempt, e.timestamp.getTime(), null]));
    expect(encodeEvents(events).length).toBeLessThan(firstFormat.length * 0.6);
  });

  it('leaves a large completed result out (resultOmitted) and keeps the event', () => {
    const big = {
      type: 'completed',
      queue: 'q',
      jobId: '1',
      attempt: 1,
      timestamp: t,
      result: 'x'.repeat(MAX_EVENT_PAYLOAD + 1),
    } as QueueEvent;
    expect(decodeEvents(encodeEvents([big]), 'o')).toEqual([
      { type: 'completed', queue: 'q', jobId: '1', attempt: 1, timestamp: t, resultOmitted: true, origin: 'o' },
    ]);
  });

  it('reads batches of the first format (earlier builds in a mixed cluster)', () => {
    const v1 = JSON.stringify([
      ['added', 'email', '5', 0, t.getTime(), { runAt: later.toISOString() }],
      ['active', 'email', '5', 1, later.getTime(), null],
    ]);
    expect(decodeEvents(v1, 'old')).toEqual([
      { type: 'added', queue: 'email', jobId: '5', attempt: 0, timestamp: t, runAt: later, origin: 'old' },
      { type: 'active', queue: 'email', jobId: '5', attempt: 1, timestamp: later, origin: 'old' },
    ]);
  });
});
