/**
 * How the pool shares one claim among its queues: every queue with free slots gets a request, no request
 * asks for more than the queue's free slots, the budget is shared one slot at a time round-robin, and the
 * starting queue rotates so a small budget does not always favour the same queues.
 */
import { WorkerPool } from '../lib/poller/worker-pool';
import { ClaimRequest } from '../lib/storage/queue-storage.interface';
import { QueueWorker } from '../lib/worker/queue-worker';

function poolOf(free: Record<string, number>): WorkerPool {
  const pool = new WorkerPool();
  for (const [queue, slots] of Object.entries(free))
    pool.register({ queue, claimableSlots: () => slots, settings: { concurrency: slots } } as unknown as QueueWorker);
  return pool;
}

function limits(requests: ClaimRequest[]): Record<string, number> {
  return Object.fromEntries(requests.map((request) => [request.queue, request.limit]));
}

describe('WorkerPool.claimRequests', () => {
  it('asks for every queue with free slots, each up to its free slots, when the budget covers them all', () => {
    const pool = poolOf({ a: 3, b: 0, c: 50, d: 1 });
    expect(limits(pool.claimRequests(1000))).toEqual({ a: 3, c: 50, d: 1 });
  });

  it('asks for nothing when no queue has a free slot', () => {
    expect(poolOf({ a: 0, b: 0 }).claimRequests(100)).toEqual([]);
    expect(poolOf({}).claimRequests(100)).toEqual([]);
  });

  it('shares a budget smaller than the free slots evenly, giving what a small queue cannot take to the others', () => {
    const requests = poolOf({ a: 50, b: 50, c: 2, d: 50 }).claimRequests(20);
    const byQueue = limits(requests);
    expect(Object.values(byQueue).reduce((sum, limit) => sum + limit, 0)).toBe(20);
    expect(byQueue.c).toBe(2);
    // 18 left for three queues with room: 6 each.
    expect([byQueue.a, byQueue.b, byQueue.d]).toEqual([6, 6, 6]);
  });

  it('never asks a queue for more than its free slots, nor for more than the budget in all', () => {
    for (let round = 0; round < 200; round++) {
      const free: Record<string, number> = {};
      for (let i = 0; i < 1 + (round % 7); i++) free[`q${i}`] = (round * 7 + i * 13) % 9;
      const budget = 1 + ((round * 11) % 40);
      const requests = poolOf(free).claimRequests(budget);
      for (const request of requests) {
        expect(request.limit).toBeGreaterThan(0);
        expect(request.limit).toBeLessThanOrEqual(free[request.queue]);
      }
      const total = requests.reduce((sum, request) => sum + request.limit, 0);
      const room = Object.values(free).reduce((sum, slots) => sum + slots, 0);
      expect(total).toBe(Math.min(budget, room));
    }
  });

  it('with a budget below the number of queues, rotates which queues get it, round after round', () => {
    const pool = poolOf({ a: 5, b: 5, c: 5, d: 5, e: 5 });
    const served = new Map<string, number>();
    for (let round = 0; round < 10; round++) {
      const requests = pool.claimRequests(2);
      expect(requests.map((request) => request.limit)).toEqual([1, 1]);
      for (const request of requests) served.set(request.queue, (served.get(request.queue) ?? 0) + 1);
    }
    expect([...served.values()]).toEqual([4, 4, 4, 4, 4]);
  });
});
