import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh SQLite file path in its own temporary folder, and a cleanup for it. */
export function tempDatabase(name = 'queue.sqlite'): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-queue-test-'));
  return { path: join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
