/**
 * Boot on a file another process holds the write lock of: the module's first statements wait up to `busyTimeout` like
 * every later one. The switch to WAL mode needs the file to itself; run before the busy timeout was set, it failed at
 * once with SQLITE_BUSY, so two processes booting on one file together could see one of them refuse to start.
 */
import { Test } from '@nestjs/testing';
import { SqliteQueueModule, QueueProducer } from '../lib';
import { startLockHolder } from './support/child-app';
import { tempDatabase } from './support/temp-database';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const BetterSqlite3 = require('better-sqlite3') as typeof import('better-sqlite3');

describe('boot on a locked SQLite file (node-sqlite3)', () => {
  it('waits for a write lock held at boot, within busyTimeout, instead of failing with SQLITE_BUSY', async () => {
    const db = tempDatabase();
    // A rollback-journal file (as a new file, or one another tool made, is) whose write lock another process holds.
    const made = new BetterSqlite3(db.path);
    made.exec('CREATE TABLE other (n INTEGER)');
    made.close();
    const holder = startLockHolder(db.path, 500);
    await holder.printed('LOCKED');
    const app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ database: db.path, driver: 'sqlite3', busyTimeout: 10_000, processing: false })],
    }).compile();
    try {
      await app.init();
      expect(await holder.exited).toBe(0);
      expect((await app.get(QueueProducer).add('booted', { n: 1 })).id).toBeDefined();
      const reader = new BetterSqlite3(db.path, { readonly: true });
      try {
        expect((reader.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
      } finally {
        reader.close();
      }
    } finally {
      await app.close();
      await holder.exited;
      db.cleanup();
    }
  });
});
