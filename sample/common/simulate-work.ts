import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Stands in for real I/O (an SMTP call, an image library, a payment API): waits a random time in
 * [minMs, maxMs]. Passing the job's signal means a timeout or a forced shutdown really stops the wait.
 */
export function simulateWork(minMs: number, maxMs: number, signal: AbortSignal): Promise<void> {
  const ms = minMs + Math.random() * (maxMs - minMs);
  return sleep(ms, undefined, { signal });
}
