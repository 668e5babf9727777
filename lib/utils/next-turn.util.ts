/**
 * Resolves on the next turn of the event loop, after the I/O and timers that are due. For loops of statements:
 * better-sqlite3 runs each one on this thread and resolves it without a turn, so such a loop would otherwise hold up
 * every handler, claim and request until it ends.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
