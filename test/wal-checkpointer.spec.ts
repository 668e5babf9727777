import { statSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { NodeSqlite3Module, WalCheckpointer } from '../lib/storage/sqlite/wal-checkpointer';
import { tempDatabase } from './support/temp-database';
import { waitFor } from './support/wait-for';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sqlite3 = require('sqlite3') as typeof import('sqlite3');

function open(path: string): Promise<import('sqlite3').Database> {
  return new Promise((resolve, reject) => {
    const database = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(database)));
  });
}

function exec(database: import('sqlite3').Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => database.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function close(database: import('sqlite3').Database): Promise<void> {
  return new Promise((resolve, reject) => database.close((error) => (error ? reject(error) : resolve())));
}

// node-sqlite3 only: the checkpointer is a second node-sqlite3 connection beside the module's own.
describe('WalCheckpointer (unit, real files): the WAL is copied back from a second connection', () => {
  let db: ReturnType<typeof tempDatabase>;
  let writer: import('sqlite3').Database;

  beforeEach(async () => {
    db = tempDatabase();
    writer = await open(db.path);
    // The writer never checkpoints by itself here, so only the checkpointer can move pages into the file.
    await exec(writer, 'PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (id INTEGER PRIMARY KEY, pad TEXT)');
  });
  afterEach(async () => {
    await close(writer);
    db.cleanup();
  });

  it('copies what the writer committed into the database file, and closes cleanly', async () => {
    await exec(
      writer,
      `INSERT INTO t (pad) SELECT printf('%.500c', 'x') FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) SELECT i FROM n)`,
    );
    const before = statSync(db.path).size;
    expect(statSync(`${db.path}-wal`).size).toBeGreaterThan(1_000_000);

    const checkpointer = new WalCheckpointer(db.path, new Logger('test'));
    await checkpointer.open(sqlite3 as unknown as NodeSqlite3Module);
    checkpointer.written();
    await waitFor(() => statSync(db.path).size > before + 1_000_000, 'the rows reached the database file');
    await checkpointer.close();
    // Nothing runs after close.
    checkpointer.written();
  });
});
