import { QueryFailedError, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { DatabaseOpenError, StorageError } from '../lib';
import { storageFailureKind } from '../lib/errors/codes/storage-failure';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('storageFailureKind: one lookup over the drivers error codes', () => {
  it.each([
    [coded('SQLITE_NOTADB'), 'not-a-database'],
    [coded('SQLITE_CORRUPT'), 'corrupt'],
    [coded('SQLITE_CORRUPT_INDEX'), 'corrupt'],
    [coded('SQLITE_CANTOPEN_ISDIR'), 'cannot-open'],
    [coded('SQLITE_READONLY_DBMOVED'), 'read-only'],
    [coded('SQLITE_FULL'), 'disk-full'],
    [coded('ECONNREFUSED'), 'connection-refused'],
    [coded('ENOTFOUND'), 'host-not-found'],
    // A lookup that failed for now (the resolver timed out): still the name, not the server.
    [coded('EAI_AGAIN', 'getaddrinfo EAI_AGAIN db.internal'), 'host-not-found'],
    [coded('28P01'), 'authentication-failed'],
    [coded('3D000'), 'database-missing'],
    [coded('57P01', 'terminating connection due to administrator command'), 'connection-lost'],
    [coded('57P02', 'terminating connection due to crash of another server process'), 'connection-lost'],
    [coded('57P03', 'the database system is shutting down'), 'connection-lost'],
    [coded('ECONNRESET'), 'connection-lost'],
    [coded('08006', 'connection failure'), 'connection-lost'],
    [coded('08P01', 'protocol violation'), 'connection-lost'],
    [new Error('Connection terminated unexpectedly'), 'connection-lost'],
    // node-postgres, on a query in flight when its client was ended.
    [new Error('Connection terminated'), 'connection-lost'],
    [new QueryRunnerAlreadyReleasedError(), 'connection-lost'],
    [new Error('the connection terminated the test'), 'other'],
    [coded('SQLITE_BUSY'), 'other'],
    [new Error('no code'), 'other'],
    ['a string', 'other'],
  ])('%p is %s', (error, kind) => {
    expect(storageFailureKind(error)).toBe(kind);
  });

  it("follows TypeORM's driverError and cause chains", () => {
    const failed = new QueryFailedError('SELECT 1', [], coded('SQLITE_CORRUPT'));
    expect(storageFailureKind(failed)).toBe('corrupt');
    expect(storageFailureKind(new Error('outer', { cause: coded('28P01') }))).toBe('authentication-failed');
  });

  it("a boot whose connection was cut says so, not 'unexpected database error'", () => {
    // TypeORM releases a query runner whose connection failed: the boot's next statement on it fails with this.
    const error = new DatabaseOpenError('127.0.0.1:5432/test', new QueryRunnerAlreadyReleasedError());
    expect(error.kind).toBe('connection-lost');
    expect(error.message).toBe(
      'Cannot open the queue database 127.0.0.1:5432/test: the connection to the server was lost (the server restarted or shut ' +
        'down, or the session was terminated); retry once the server answers again (Query runner already released. Cannot run ' +
        'queries anymore.)',
    );
  });

  it('a hostile error object is other, not a throw', () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('no');
        },
      },
    );
    expect(storageFailureKind(hostile)).toBe('other');
  });

  it('StorageError keeps the cause and says whether a retry may work', () => {
    const busy = coded('SQLITE_BUSY', 'SQLITE_BUSY: database is locked');
    const error = new StorageError('QueueProducer.add', 'queue "q"', busy);
    expect(error.cause).toBe(busy);
    expect(error.transient).toBe(true);
    expect(error.message).toBe(
      'QueueProducer.add (queue "q") failed in the database: the database is busy or unreachable for now: SQLITE_BUSY: database is locked',
    );
  });

  it('a StorageError of a lost connection says the connection was lost, and that a retry may work', () => {
    const lost = coded('57P01', 'terminating connection due to administrator command');
    const error = new StorageError('waitUntilFinished', 'job 7', lost);
    expect(error).toMatchObject({ kind: 'connection-lost', transient: true });
    expect(error.message).toBe(
      'waitUntilFinished (job 7) failed in the database: the connection to the server was lost (the server restarted or shut ' +
        'down, or the session was terminated); retry once the server answers again: terminating connection due to administrator command',
    );
  });
});
