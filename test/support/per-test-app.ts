import { TestingModule } from '@nestjs/testing';
import { tempDatabase } from './temp-database';

/** What `perTestApp()` hands a describe block: the current test's database file, and its app once started. */
export interface PerTestApp {
  readonly db: ReturnType<typeof tempDatabase>;
  /** Set by the test; closed (and cleared) after it. */
  app: TestingModule | undefined;
}

/**
 * Registers, in the calling describe block, a fresh SQLite file before each test and, after it, closes the app
 * the test set and removes the file.
 */
export function perTestApp(): PerTestApp {
  let db: ReturnType<typeof tempDatabase> | undefined;
  const state = {
    get db(): ReturnType<typeof tempDatabase> {
      if (!db) throw new Error('perTestApp().db read outside a test');
      return db;
    },
    app: undefined as TestingModule | undefined,
  };
  beforeEach(() => (db = tempDatabase()));
  afterEach(async () => {
    await state.app?.close();
    state.app = undefined;
    db?.cleanup();
    db = undefined;
  });
  return state;
}
