/**
 * The storage contract of the members no other contract file names: `StorageLifecycle` (fault, backup), the rest of
 * `EnqueueStorage` (enqueueIn, openTransactionOf, afterCommitOf, completeIn, parallelInserts), `InspectionStorage.queueKnown` and the one-job
 * recovery of `LeaseStorage`, on every backend.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { BackupNotSupportedError } from '../../lib/errors/backup-not-supported.error';
import { UnsupportedTransactionError } from '../../lib/errors/unsupported-transaction.error';
import { describeEachBackend } from '../support/backends';
import { createQueueStorage } from '../../lib/runtime/create-queue-storage';
import { resolveModuleOptions } from '../../lib/runtime/resolve-module-options';
import { CONTRACT_LEASE, addJob, claimOne, contractStorage, newJob, recordingStorage, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: lifecycle and the rest', (backend) => {
  const s = contractStorage(backend);

  it('initialize opens a storage on the database and close releases it; what it wrote is there for the next one', async () => {
    const opened = recordingStorage(createQueueStorage(resolveModuleOptions({ ...s.db.options })), backend.name);
    await opened.initialize();
    const [job] = await opened.enqueue('life', [newJob({ data: '{"kept":true}' })], Date.now());
    await opened.close();
    expect(await s.storage.getJob(job.id)).toMatchObject({ id: job.id, queue: 'life', data: '{"kept":true}', status: 'pending' });
  });

  it('fault is undefined on a healthy storage; backup copies a SQLite database and is refused on PostgreSQL', async () => {
    expect(s.storage.fault).toBeUndefined();
    const destination = join(s.db.dir, 'copy.sqlite');
    if (backend.kind === 'postgres') {
      await expect(s.storage.backup(destination)).rejects.toBeInstanceOf(BackupNotSupportedError);
      return;
    }
    await addJob(s.storage, 'q');
    await s.storage.backup(destination);
    expect(existsSync(destination)).toBe(true);
  });

  it('enqueueIn refuses a transaction that cannot hold the job atomically and writes nothing; parallelInserts is a count', async () => {
    expect(s.storage.parallelInserts ?? 1).toBeGreaterThanOrEqual(1);
    const other =
      backend.kind === 'postgres'
        ? new DataSource({ type: 'postgres', url: (s.db.options.postgres as { url: string }).url.replace(/\/[^/]*$/, '/postgres') })
        : new DataSource({ type: 'better-sqlite3', database: join(s.db.dir, 'other.sqlite') });
    await other.initialize();
    try {
      await expect(other.transaction((manager) => s.storage.enqueueIn(manager, 'q', [newJob()], Date.now()))).rejects.toBeInstanceOf(
        UnsupportedTransactionError,
      );
    } finally {
      await other.destroy();
    }
    expect(await s.storage.getCounts('q')).toEqual([]);
  });

  it('openTransactionOf: none outside a transaction on an owned SQLite database; absent on PostgreSQL', () => {
    if (backend.kind === 'postgres') expect(s.storage.openTransactionOf).toBeUndefined();
    else expect(s.storage.openTransactionOf!()).toBeUndefined();
  });

  it('afterCommitOf calls back when the transaction holding the rows commits, never when it or their savepoint rolls back', async () => {
    const calls: string[] = [];
    // Without a transaction the rows are committed already: at once.
    s.storage.afterCommitOf(undefined, () => calls.push('autocommit'));
    expect(calls).toEqual(['autocommit']);
    // The application's own DataSource on the same database: a transaction that can hold the queue's rows.
    const postgres = s.db.options.postgres as { url: string } | undefined;
    const source = postgres
      ? new DataSource({ type: 'postgres', url: postgres.url })
      : new DataSource({ type: 'better-sqlite3', database: s.db.path });
    await source.initialize();
    try {
      await source.transaction(async (manager) => {
        await s.storage.enqueueIn(manager, 'q', [newJob()], Date.now());
        s.storage.afterCommitOf(manager, () => calls.push('outer'));
        await manager.transaction(async (inner) => s.storage.afterCommitOf(inner, () => calls.push('released savepoint')));
        await manager
          .transaction(async (inner) => {
            s.storage.afterCommitOf(inner, () => calls.push('rolled-back savepoint'));
            throw new Error('roll back to the savepoint');
          })
          .catch(() => undefined);
        expect(calls).toEqual(['autocommit']);
      });
      expect(calls).toEqual(['autocommit', 'outer', 'released savepoint']);
      await source
        .transaction(async (manager) => {
          s.storage.afterCommitOf(manager, () => calls.push('rolled back'));
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(calls).toEqual(['autocommit', 'outer', 'released savepoint']);
    } finally {
      await source.destroy();
    }
  });

  it('completeIn completes an attempt in the caller transaction (gone on rollback), fenced, and refuses another database', async () => {
    const postgres = s.db.options.postgres as { url: string } | undefined;
    const source = postgres
      ? new DataSource({ type: 'postgres', url: postgres.url })
      : new DataSource({ type: 'better-sqlite3', database: s.db.path });
    const other = postgres
      ? new DataSource({ type: 'postgres', url: postgres.url.replace(/\/[^/]*$/, '/postgres') })
      : new DataSource({ type: 'better-sqlite3', database: join(s.db.dir, 'other.sqlite') });
    await source.initialize();
    await other.initialize();
    try {
      await addJob(s.storage, 'q');
      const job = await claimOne(s.storage, 'q', 'w');
      const completion = { ref: ref(job), result: '{"done":1}' };
      await source
        .transaction(async (manager) => {
          expect(await s.storage.completeIn(manager, completion, 'w', Date.now())).toBe(true);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'running', result: null });
      // Fenced like every outcome: another worker's, or another attempt, changes nothing.
      await source.transaction(async (manager) => {
        expect(await s.storage.completeIn(manager, completion, 'other-worker', Date.now())).toBe(false);
        expect(await s.storage.completeIn(manager, { ...completion, ref: { ...completion.ref, attempt: 2 } }, 'w', Date.now())).toBe(false);
      });
      await expect(other.transaction((manager) => s.storage.completeIn(manager, completion, 'w', Date.now()))).rejects.toBeInstanceOf(
        UnsupportedTransactionError,
      );
      await expect(s.storage.completeIn(source.manager, completion, 'w', Date.now())).rejects.toBeInstanceOf(UnsupportedTransactionError);
      expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'running', result: null });
      await source.transaction(async (manager) => {
        expect(await s.storage.completeIn(manager, completion, 'w', Date.now())).toBe(true);
      });
      expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'completed', result: '{"done":1}', leaseUntil: null });
    } finally {
      await source.destroy();
      await other.destroy();
    }
  });

  it('queueKnown is true for a queue with a job or a state row, false otherwise', async () => {
    expect(await s.storage.queueKnown('q')).toBe(false);
    await addJob(s.storage, 'q');
    await s.storage.setPaused('paused-only', true, Date.now());
    expect(await s.storage.queueKnown('q')).toBe(true);
    expect(await s.storage.queueKnown('paused-only')).toBe(true);
    expect(await s.storage.queueKnown('other')).toBe(false);
  });

  it('findExpiredLeases lists expired running jobs but the skipped; recoverExpiredLease recovers one, null when not expired', async () => {
    const a = await addJob(s.storage, 'q');
    const b = await addJob(s.storage, 'q');
    await s.storage.claim([{ queue: 'q', limit: 2 }], 'w', Date.now(), 1);
    const later = Date.now() + 10 * CONTRACT_LEASE;
    expect(await s.storage.findExpiredLeases(later, [])).toEqual([
      { id: a.id, queue: 'q' },
      { id: b.id, queue: 'q' },
    ]);
    expect(await s.storage.findExpiredLeases(later, [a.id])).toEqual([{ id: b.id, queue: 'q' }]);
    expect(await s.storage.recoverExpiredLease(a.id, Date.now() - 10 * CONTRACT_LEASE, 1)).toBeNull();
    const recovered = await s.storage.recoverExpiredLease(a.id, later, 1);
    expect(recovered).toMatchObject({ id: a.id, queue: 'q', status: 'pending', attempts: 1 });
    expect(await s.storage.recoverExpiredLease(a.id, later, 1)).toBeNull();
    expect(await s.storage.findExpiredLeases(later, [])).toEqual([{ id: b.id, queue: 'q' }]);
  });
});
