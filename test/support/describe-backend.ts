/** `describe` / `it` variants for tests that only apply to one backend (see test/support/test-backend.ts). */
import { testBackend } from './test-backend';

/** `describe` for tests that only make sense on SQLite (they open the file directly, count SQLite statements...). */
export const describeSqliteOnly: jest.Describe = testBackend() === 'sqlite' ? describe : describe.skip;

/** `it` for a single test that only makes sense on SQLite. */
export const itSqliteOnly: jest.It = testBackend() === 'sqlite' ? it : it.skip;

/** `describe` for tests of the PostgreSQL backend itself. */
export const describePostgresOnly: jest.Describe = testBackend() === 'postgres' ? describe : describe.skip;
