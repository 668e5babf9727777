/**
 * `QueueAdmin.remove()` against a claim that lands while it works: whatever it reports must be what happened.
 * The race is made deterministic by running a claim right after a chosen statement `remove()` sends.
 */
import { Test } from '@nestjs/testing';
import { InvalidJobStateError, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { errorOf } from './support/ops';
import { describeEachBackend, itWhen, perTestApp, MIGRATED } from './support/backends';
import { openSideTransaction } from './support/postgres-side-transaction';
import { betweenStatements } from './support/statement-hook';

describeEachBackend('remove() racing a claim', (backend) => {
  const ctx = perTestApp(backend, MIGRATED);

  async function start(): Promise<{ admin: QueueAdmin; producer: QueueProducer; storage: QueueStorage }> {
    ctx.app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...ctx.db.options, processing: false })] }).compile();
    await ctx.app.init();
    return { admin: ctx.app.get(QueueAdmin), producer: ctx.app.get(QueueProducer), storage: await ctx.app.get(QueueRuntime).storage() };
  }

  /** Makes the statement number `at` (from 0) of `storage` be followed, before its caller sees the result, by `between()`. */
  function afterStatement(storage: QueueStorage, at: number, between: () => Promise<unknown>): void {
    const unhook = betweenStatements(storage, async (index) => {
      if (index !== at) return;
      unhook();
      await between();
    });
  }

  it('a job claimed while remove() runs is either deleted (and never runs) or refused as running (and kept)', async () => {
    const { admin, producer, storage } = await start();
    const job = await producer.add('race', { n: 1 });
    let claimed: string[] = [];
    afterStatement(storage, 0, async () => {
      const now = Date.now();
      claimed = (await storage.claim([{ queue: 'race', limit: 1 }], 'intruder', now, now + 60_000)).map((claim) => claim.id);
    });

    const error = await admin.remove(job.id).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    const after = await admin.getJob(job.id);
    if (error === undefined) {
      // Reported removed: then it is gone, and nobody got to claim it.
      expect(after).toBeNull();
      expect(claimed).toEqual([]);
    } else {
      expect(error).toBeInstanceOf(InvalidJobStateError);
      expect(error).toMatchObject({ jobId: job.id, status: 'running', operation: 'remove' });
      expect(after).toMatchObject({ status: 'running', lockedBy: 'intruder' });
      expect(claimed).toEqual([job.id]);
    }
  });

  // A claim after each statement remove(…, { cascade: true }) may send (today one; before, up to four).
  it.each([0, 1, 2, 3])(
    'a flow claimed after statement %i of remove({ cascade: true }) is either deleted whole (nothing ran) or refused whole (nothing deleted)',
    async (at) => {
      const { admin, producer, storage } = await start();
      const root = await producer.addFlow({
        queue: 'assemble',
        data: {},
        children: [
          { queue: 'held', data: { n: 1 } },
          { queue: 'held', data: { n: 2 }, children: [{ queue: 'held', data: { n: 3 } }] },
        ],
      });
      const tree = [root.id, ...(await descendantsOf(admin, root.id))];
      expect(tree).toHaveLength(4);
      let claimed: string[] = [];
      afterStatement(storage, at, async () => {
        const now = Date.now();
        const requests = [
          { queue: 'held', limit: 1 },
          { queue: 'assemble', limit: 1 },
        ];
        claimed = (await storage.claim(requests, 'intruder', now, 60_000)).map((claim) => claim.id);
      });

      const error = await admin.remove(root.id, { cascade: true }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      const left = (await Promise.all(tree.map((id) => admin.getJob(id)))).filter((job) => job !== null);
      if (error === undefined) {
        expect(left).toEqual([]);
        expect(claimed).toEqual([]);
      } else {
        expect(error).toBeInstanceOf(InvalidJobStateError);
        expect(claimed).toHaveLength(1);
        expect(error).toMatchObject({ jobId: claimed[0], status: 'running', operation: 'remove' });
        expect(left.map((job) => job.id).sort()).toEqual([...tree].sort());
      }
    },
  );

  // PostgreSQL runs transactions side by side: a claim not yet committed when remove's statement starts must still
  // decide it (the statement waits for the claim's row lock, then reads the row as the claim left it).
  itWhen(backend.kind === 'postgres').each(['COMMIT', 'ROLLBACK'] as const)(
    'a claim of a child still uncommitted when remove({ cascade: true }) starts: after its %s, the tree is refused whole or deleted whole',
    async (end) => {
      const { admin, producer } = await start();
      const root = await producer.addFlow({
        queue: 'assemble',
        data: {},
        children: [
          { queue: 'held', data: { n: 1 } },
          { queue: 'held', data: { n: 2 } },
        ],
      });
      const tree = [root.id, ...(await descendantsOf(admin, root.id))];
      const side = await openSideTransaction(ctx.db.options);
      try {
        await side.query(`UPDATE ${side.jobs} SET status = 'running', locked_by = 'intruder' WHERE id = $1`, [tree[1]]);
        const removing = admin.remove(root.id, { cascade: true }).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        await side.untilWaitedOn(removing);
        await side.end(end);
        const error = await removing;
        const left = (await Promise.all(tree.map((id) => admin.getJob(id)))).filter((job) => job !== null);
        if (end === 'COMMIT') {
          expect(error).toBeInstanceOf(InvalidJobStateError);
          expect(error).toMatchObject({ jobId: tree[1], status: 'running', operation: 'remove' });
          expect(left.map((job) => job.status)).toEqual(['pending', 'running', 'pending']);
        } else {
          expect(error).toBeUndefined();
          expect(left).toEqual([]);
        }
      } finally {
        await side.close();
      }
    },
  );

  it('remove() of a running job refuses with InvalidJobStateError and deletes nothing', async () => {
    const { admin, producer, storage } = await start();
    const job = await producer.add('race', { n: 1 });
    const now = Date.now();
    expect((await storage.claim([{ queue: 'race', limit: 1 }], 'holder', now, now + 60_000)).map((claim) => claim.id)).toEqual([job.id]);
    const error = await errorOf(() => admin.remove(job.id));
    expect(error).toBeInstanceOf(InvalidJobStateError);
    expect(error).toMatchObject({ jobId: job.id, status: 'running', operation: 'remove' });
    expect(await admin.getJob(job.id)).toMatchObject({ status: 'running', lockedBy: 'holder' });
  });
});

/** Every descendant of a job, breadth first. */
async function descendantsOf(admin: QueueAdmin, id: string): Promise<string[]> {
  const children = (await admin.getJob(id))?.flow?.childrenIds ?? [];
  const below = await Promise.all(children.map((child) => descendantsOf(admin, child)));
  return [...children, ...below.flat()];
}
