/**
 * `rawQuery` on better-sqlite3 rejects with an `Error` of the calling test file's realm. The driver's native addon
 * is loaded once per jest worker and throws errors of the `SqliteError` class it was first given: the class of the
 * first test file that opened a database in that worker. A later file's `rejects.toThrow(...)` then saw no error at
 * all ("Received function did not throw"), which full runs of migration-lock-wait.e2e showed as a migrations table
 * written by a boot that gave up. Here the first file is played by a context of its own (`node:vm`), so the check
 * does not depend on which files ran before in the worker.
 */
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import type { TestDatabase } from './support/backends';
import { rawQuery } from './support/raw-sqlite';

/** The slice of the native addon that chooses the class of the errors it throws. */
interface BetterSqlite3Addon {
  isInitialized?: boolean;
  setErrorConstructor(constructor: unknown): void;
}

/** The driver's own `SqliteError`, evaluated in a fresh realm: what a test file that ran earlier left behind. */
function sqliteErrorOfAnotherRealm(): new (message: string, code: string) => object {
  const source = readFileSync(require.resolve('better-sqlite3/lib/sqlite-error.js'), 'utf8');
  const sandbox = { module: { exports: {} as unknown } };
  runInContext(source, createContext(sandbox));
  return sandbox.module.exports as new (message: string, code: string) => object;
}

/** The class the addon throws now (whichever realm gave it). */
function currentErrorClass(): unknown {
  const connection = new BetterSqlite3(':memory:');
  try {
    connection.prepare('SELECT * FROM no_such_table');
  } catch (error) {
    return (error as object).constructor;
  } finally {
    connection.close();
  }
  throw new Error('the statement on a missing table did not fail');
}

describe('rawQuery on better-sqlite3, after another realm initialised the driver', () => {
  // better-sqlite3 loads its addon through `bindings`, which resolves this file: Node caches it, jest too.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const addon = require(require.resolve('better-sqlite3/build/Release/better_sqlite3.node')) as BetterSqlite3Addon;
  let original: unknown;
  let db: TestDatabase;

  beforeAll(() => {
    original = currentErrorClass();
    expect(addon.isInitialized).toBe(true);
    addon.setErrorConstructor(sqliteErrorOfAnotherRealm());
  });
  afterAll(() => addon.setErrorConstructor(original));
  // A database of the better-sqlite3 backend, made here: the backends module would load the whole library.
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-queue-test-'));
    const path = join(dir, 'queue.sqlite');
    db = { dir, path, options: { database: path, driver: 'better-sqlite3' }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  });
  afterEach(() => db.cleanup());

  it('the driver itself throws errors that are no Error of this realm (the condition this guards against)', () => {
    const thrown = currentErrorClass() as { prototype: object };
    expect(thrown.prototype instanceof Error).toBe(false);
  });

  it('rejects with an Error of this realm, with the message and code of the driver', async () => {
    const reading = rawQuery(db, 'SELECT version FROM nest_queue_migrations');
    await expect(reading).rejects.toThrow(/no such table: nest_queue_migrations/);
    await expect(reading).rejects.toBeInstanceOf(Error);
    await expect(reading).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
  });
});
