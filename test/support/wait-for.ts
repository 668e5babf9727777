/**
 * Polls `condition` until it holds, failing with `message` after `timeoutMs`. Tests wait on conditions,
 * never on fixed sleeps.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  message: string,
  timeoutMs = 30_000,
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Polls `progress` (a count that only grows, e.g. jobs completed) until it reaches `target`, for as long as it keeps
 * growing: fails once it has not grown for `stallMs`, with `describeStall()`'s report when given. For waits whose
 * length is the machine's speed, not the claim under test (a loaded run processes thousands of jobs slowly): a fixed
 * deadline there fails on a busy machine, where a stall is what a lost job or a stuck writer looks like.
 */
export async function waitWhileProgressing(
  progress: () => Promise<number>,
  target: number,
  message: string,
  {
    stallMs = 30_000,
    intervalMs = 50,
    describeStall,
  }: { stallMs?: number; intervalMs?: number; describeStall?: () => Promise<string> } = {},
): Promise<void> {
  let last = -1;
  let progressAt = Date.now();
  for (;;) {
    const now = await progress();
    if (now >= target) return;
    if (now > last) [last, progressAt] = [now, Date.now()];
    else if (Date.now() - progressAt > stallMs) {
      const report = describeStall ? `:\n${await describeStall()}` : '';
      throw new Error(`No progress for ${stallMs} ms waiting for: ${message} (${now} of ${target})${report}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A promise with its resolve function, to let a test hold a handler until it says so. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
