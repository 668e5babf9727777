/**
 * `QueueAdmin.remove()` against a claim that lands while it works: whatever it reports must be what happened.
 * The race is made deterministic by running a claim right after the first statement `remove()` sends.
 */
import { Test } from '@nestjs/testing';
import { InvalidJobStateError, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { QueueFactory } from '../lib/factory/queue.factory';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp } from './support/backends';

/** Both backends run every statement through a private `select(statement, params)`. */
type WithSelect = { select(statement: string, params: unknown[]): Promise<unknown[]> };

describeEachBackend('remove() racing a claim', (backend) => {
  const ctx = perTestApp(backend);

  async function start(): Promise<{ admin: QueueAdmin; producer: QueueProducer; storage: QueueStorage }> {
    ctx.app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...ctx.db.options, processing: false })] }).compile();
    await ctx.app.init();
    return { admin: ctx.app.get(QueueAdmin), producer: ctx.app.get(QueueProducer), storage: await ctx.app.get(QueueFactory).storage() };
  }

  /** Makes the next statement of `storage` be followed, before its caller sees the result, by `between()`. */
  function afterNextStatement(storage: QueueStorage, between: () => Promise<unknown>): void {
    const target = storage as unknown as WithSelect;
    const select = target.select;
    target.select = async function (this: WithSelect, statement, params) {
      target.select = select;
      const rows = await select.call(this, statement, params);
      await between();
      return rows;
    };
  }

  it('a job claimed while remove() runs is either deleted (and never runs) or refused as running (and kept)', async () => {
    const { admin, producer, storage } = await start();
    const job = await producer.add('race', { n: 1 });
    let claimed: string[] = [];
    afterNextStatement(storage, async () => {
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
