import { DataSource, QueryFailedError } from 'typeorm';
import { NodeSqlite3Database, PreparedNodeSqlite3Statements, QueryRunnerStatements } from '../lib/storage/sqlite/sqlite-statements';
import { labelAfterVerb } from '../lib/storage/shared/statement-runner';
import { TransactionStatements } from '../lib/storage/transactions/transaction-statements';
import { tempDatabase } from './support/temp-database';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sqlite3 = require('sqlite3') as typeof import('sqlite3');

function open(path: string): Promise<import('sqlite3').Database> {
  return new Promise((resolve, reject) => {
    const database = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(database)));
  });
}

function close(database: import('sqlite3').Database): Promise<void> {
  return new Promise((resolve, reject) => database.close((error) => (error ? reject(error) : resolve())));
}

function readAll(database: import('sqlite3').Database, sql: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => database.all(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
}

/**
 * A stand-in for node-sqlite3: every statement prepares and runs a turn of the event loop later with no rows;
 * `onRun` sees each run's parameters as it reaches the driver (and may throw, as a driver could).
 */
function standInDriver(onRun: (params: unknown[]) => void): NodeSqlite3Database {
  const driver = {
    prepare(_sql: string, ready: (error: Error | null) => void) {
      setImmediate(() => ready(null));
      return {
        all(params: unknown[], done: (error: Error | null, rows: unknown[]) => void) {
          onRun(params);
          setImmediate(() => done(null, []));
        },
        run() {},
        finalize(finalized: () => void) {
          finalized();
        },
      };
    },
  };
  return driver as unknown as NodeSqlite3Database;
}

describe('PreparedNodeSqlite3Statements (the module-owned node-sqlite3 connection)', () => {
  let db: ReturnType<typeof tempDatabase>;
  let connection: import('sqlite3').Database;
  let statements: PreparedNodeSqlite3Statements;

  beforeEach(async () => {
    db = tempDatabase();
    connection = await open(db.path);
    statements = new PreparedNodeSqlite3Statements(connection);
    await statements.all('PRAGMA journal_mode = WAL', []);
    await statements.run('CREATE TABLE items (id INTEGER PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0))', []);
  });

  afterEach(async () => {
    await statements.close();
    await close(connection);
    db.cleanup();
  });

  it('reuses one prepared statement with new parameters and returns rows and change counts', async () => {
    for (let n = 0; n < 5; n++) expect(await statements.run('INSERT INTO items (n) VALUES (?)', [n])).toBe(1);
    expect(await statements.run('UPDATE items SET n = n + 10 WHERE n >= ?', [3])).toBe(2);
    expect(await statements.all('SELECT n FROM items WHERE n > ? ORDER BY n', [1])).toEqual([{ n: 2 }, { n: 13 }, { n: 14 }]);
    expect(await statements.all('/* rows */ UPDATE items SET n = n WHERE id = ? RETURNING id, n', [1])).toEqual([{ id: 1, n: 0 }]);
  });

  it('runs concurrent calls one at a time, each with its own parameters', async () => {
    const inserts = Array.from({ length: 200 }, (_, n) => statements.run('INSERT INTO items (n) VALUES (?)', [n]));
    const reads = Array.from({ length: 50 }, (_, n) => statements.all('SELECT COUNT(*) AS count FROM items WHERE n < ?', [n]));
    expect(await Promise.all(inserts)).toEqual(Array(200).fill(1));
    // Every read ran after the inserts queued before it.
    expect((await Promise.all(reads)).map((rows) => (rows[0] as { count: number }).count)).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });

  it('reports a failed statement as a QueryFailedError, and the writes after it still commit', async () => {
    await statements.run('INSERT INTO items (n) VALUES (?)', [1]);
    const failure = statements.run('INSERT INTO items (n) VALUES (?)', [-1]);
    await expect(failure).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failure).rejects.toMatchObject({ query: 'INSERT INTO items (n) VALUES (?)', parameters: [-1] });
    await expect(failure).rejects.toThrow(/CHECK constraint failed/);

    expect(await statements.run('INSERT INTO items (n) VALUES (?)', [2])).toBe(1);
    // Another connection sees it: nothing is left open on ours.
    const reader = await open(db.path);
    try {
      expect(await readAll(reader, 'SELECT n FROM items ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      await close(reader);
    }
  });

  it('refuses run() for statements that produce rows (one step would leave them open)', async () => {
    await expect(statements.run('SELECT 1', [])).rejects.toThrow(/without rows/);
    await expect(statements.run('/* x */ UPDATE items SET n = 1 RETURNING id', [])).rejects.toThrow(/without rows/);
  });

  it('close() waits for the statement in progress and finalizes every statement, so the connection can close', async () => {
    const pending = statements.run('INSERT INTO items (n) VALUES (?)', [7]);
    await statements.close();
    await expect(pending).resolves.toBe(1);
    await expect(statements.all('SELECT 1', [])).rejects.toThrow(/after close/);
    // node-sqlite3 refuses to close a connection with unfinalized statements (SQLITE_BUSY).
    await close(connection);
    connection = await open(db.path);
  });

  it('hands the next statement to the driver before the caller of the previous one resumes', async () => {
    // A stand-in driver that records when each statement reaches it: SQLite's thread must not wait for this
    // thread to run a caller's continuation before it gets the next statement.
    const log: string[] = [];
    const pipelined = new PreparedNodeSqlite3Statements(standInDriver((params) => log.push(`driver runs ${String(params[0])}`)));
    const first = pipelined.all('SELECT ?', ['a']).then(() => log.push('caller of a resumes'));
    const second = pipelined.all('SELECT ?', ['b']).then(() => log.push('caller of b resumes'));
    await Promise.all([first, second]);
    await pipelined.close();
    expect(log).toEqual(['driver runs a', 'driver runs b', 'caller of a resumes', 'caller of b resumes']);
  });

  it('rejects a statement whose driver call throws instead of calling back, and runs the next one', async () => {
    const ran: string[] = [];
    const guarded = new PreparedNodeSqlite3Statements(
      standInDriver((params) => {
        if (params[0] === 'bad') throw new TypeError('cannot bind');
        ran.push(String(params[0]));
      }),
    );
    const bad = guarded.all('SELECT ?', ['bad']);
    const good = guarded.all('SELECT ?', ['good']);
    await expect(bad).rejects.toBeInstanceOf(QueryFailedError);
    await expect(bad).rejects.toThrow(/cannot bind/);
    await expect(good).resolves.toEqual([]);
    expect(ran).toEqual(['good']);
    await guarded.close();
  });
});

describe.each(['sqlite', 'better-sqlite3'] as const)('QueryRunnerStatements (an application-owned DataSource, TypeORM type %s)', (type) => {
  let db: ReturnType<typeof tempDatabase>;
  let dataSource: DataSource;
  let statements: QueryRunnerStatements;

  beforeEach(async () => {
    db = tempDatabase();
    dataSource = new DataSource({ type, database: db.path, entities: [], synchronize: false });
    await dataSource.initialize();
    statements = new QueryRunnerStatements(dataSource.createQueryRunner());
    await statements.run('CREATE TABLE items (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)', []);
  });

  afterEach(async () => {
    await dataSource.destroy();
    db.cleanup();
  });

  it('returns the change count of labelled writes (a label before the verb hid it from TypeORM on node-sqlite3)', async () => {
    expect(await statements.run('/* add */ INSERT INTO items (n) VALUES (?), (?), (?)', [1, 2, 3])).toBe(3);
    expect(await statements.run('/* bump */ UPDATE items SET n = n + 10 WHERE n >= ?', [2])).toBe(2);
    expect(await statements.run('/* retry */ UPDATE OR IGNORE items SET n = n + 1 WHERE id = ?', [1])).toBe(1);
    expect(await statements.run('/* drop */ DELETE FROM items WHERE n > ?', [11])).toBe(2);
    expect(await statements.run('/* drop none */ DELETE FROM items /* by value */ WHERE n > ?', [11])).toBe(0);
    expect(await statements.run('UPDATE items SET n = 0', [])).toBe(1);
    expect(await statements.all('/* rows */ SELECT n FROM items', [])).toEqual([{ n: 0 }]);
  });

  it("returns the change count of labelled writes in the caller's transaction too (job.completeIn's runner)", async () => {
    await statements.run('INSERT INTO items (n) VALUES (1), (2)', []);
    await dataSource.transaction(async (manager) => {
      const inTransaction = new TransactionStatements(manager.queryRunner!);
      expect(await inTransaction.run('/* complete */ UPDATE items SET n = n + 1', [])).toBe(2);
      expect(await inTransaction.run('/* drop */ DELETE FROM items WHERE n = ?', [3])).toBe(1);
    });
    expect(await statements.all('SELECT n FROM items', [])).toEqual([{ n: 2 }]);
  });
});

describe('labelAfterVerb', () => {
  it('moves the leading label alone behind the first word, and leaves the rest of the text as it is', () => {
    expect(labelAfterVerb('/* complete */ UPDATE t SET a = 1 WHERE id = ?')).toBe('UPDATE /* complete */ t SET a = 1 WHERE id = ?');
    expect(labelAfterVerb('  /* bump */\n  UPDATE t SET a = a + 1 /* every row */ WHERE a > ?')).toBe(
      'UPDATE /* bump */ t SET a = a + 1 /* every row */ WHERE a > ?',
    );
    expect(labelAfterVerb('UPDATE t SET a = 1 /* no label */')).toBe('UPDATE t SET a = 1 /* no label */');
  });
});
