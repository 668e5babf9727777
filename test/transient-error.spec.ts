/** Unit tests of lib/errors/codes/transient-error.ts: which storage errors a retry can get past. */
import { QueryFailedError } from 'typeorm';
import { isTransientStorageError } from '../lib/errors/codes/transient-error';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isTransientStorageError', () => {
  it.each<[string, unknown]>([
    ['SQLITE_BUSY (node-sqlite3)', withCode('SQLITE_BUSY', 'SQLITE_BUSY: database is locked')],
    ['SQLITE_BUSY_SNAPSHOT (better-sqlite3 extended code)', withCode('SQLITE_BUSY_SNAPSHOT')],
    ['SQLITE_LOCKED', withCode('SQLITE_LOCKED')],
    ['PostgreSQL admin shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['PostgreSQL server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['PostgreSQL connection failure (08006)', withCode('08006')],
    ['PostgreSQL protocol violation (08P01, a class 08 code with a letter)', withCode('08P01')],
    ['PostgreSQL serialization failure (40001)', withCode('40001')],
    ['PostgreSQL deadlock (40P01)', withCode('40P01')],
    ['ECONNRESET', withCode('ECONNRESET')],
    ['ECONNREFUSED', withCode('ECONNREFUSED')],
    ['node-postgres lost connection', new Error('Connection terminated unexpectedly')],
    ['pg-pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['node-postgres client after a connection error', new Error('Client has encountered a connection error and is not queryable')],
    ['node-postgres client closed under a query', new Error('Client was closed and is not queryable')],
    ['a TypeORM QueryFailedError wrapping SQLITE_BUSY', new QueryFailedError('UPDATE', [], withCode('SQLITE_BUSY'))],
    ['a cause chain ending in ECONNRESET', new Error('write failed', { cause: withCode('ECONNRESET') })],
  ])('%s is transient', (_case, error) => {
    expect(isTransientStorageError(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['PostgreSQL invalid bigint (22P02)', withCode('22P02', 'invalid input syntax for type bigint: "1e+300"')],
    ['PostgreSQL value out of range (22003)', withCode('22003')],
    ['PostgreSQL unique violation (23505)', withCode('23505')],
    ['SQLITE_FULL', withCode('SQLITE_FULL')],
    ['SQLITE_TOOBIG', withCode('SQLITE_TOOBIG')],
    ['a TypeORM QueryFailedError wrapping 22P02', new QueryFailedError('UPDATE', [], withCode('22P02'))],
    ['a plain error', new Error('something else')],
    ['a string', 'SQLITE_BUSY'],
    ['null', null],
    [
      'a Proxy whose traps throw',
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap');
          },
        },
      ),
    ],
  ])('%s is not transient', (_case, error) => {
    expect(isTransientStorageError(error)).toBe(false);
  });
});
