import { InvalidArgumentError, InvalidQueueNameError, QueueAdmin, QueueProducer } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { errorOf } from './support/ops';
import { waitFor } from './support/wait-for';

describeEachBackend('QueueAdmin.getJobsByKey (the dashboard search)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('finds the live holder of a key and the finished jobs that held it, newest first, in that queue only', async () => {
    const Work = defineProcessor('work', async () => 'ok');
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Work] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const first = await producer.add('work', { n: 1 }, { key: 'invoice-17' });
    await waitFor(async () => (await admin.getJob(first.id))?.status === 'completed', 'first done');
    const second = await producer.add('work', { n: 2 }, { key: 'invoice-17' });
    await waitFor(async () => (await admin.getJob(second.id))?.status === 'completed', 'second done');
    await admin.pause('work');
    const live = await producer.add('work', { n: 3 }, { key: 'invoice-17' });
    await producer.add('work', { n: 4 }, { key: 'invoice-18' });
    await producer.add('elsewhere', { n: 5 }, { key: 'invoice-17' });

    const found = await admin.getJobsByKey('work', 'invoice-17');
    expect(found.map((job) => [job.id, job.status])).toEqual([
      [live.id, 'pending'],
      [second.id, 'completed'],
      [first.id, 'completed'],
    ]);
    expect(found[1].data).toEqual({ n: 2 });
    expect((await admin.getJobsByKey('work', 'invoice-17', { limit: 1 })).map((job) => job.id)).toEqual([live.id]);
    expect(await admin.getJobsByKey('work', 'no-such-key')).toEqual([]);
  });

  it('finds debounced jobs by their key: the pending one and those that ran before it, newest first', async () => {
    const Work = defineProcessor('work', async () => 'ok');
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Work] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const first = await producer.add('work', { n: 1 }, { key: 'digest-3', debounce: true });
    await waitFor(async () => (await admin.getJob(first.id))?.status === 'completed', 'first done');
    await admin.pause('work');
    const pending = await producer.add('work', { n: 2 }, { key: 'digest-3', debounce: true });
    await producer.add('work', { n: 3 }, { key: 'digest-4', debounce: true });
    await producer.add('elsewhere', { n: 4 }, { key: 'digest-3', debounce: true });

    const found = await admin.getJobsByKey('work', 'digest-3');
    expect(found.map((job) => [job.id, job.status, job.key])).toEqual([
      [pending.id, 'pending', 'digest-3'],
      [first.id, 'completed', 'digest-3'],
    ]);
  });

  it('rejects a bad queue, key or limit with a typed error', async () => {
    const admin = (await current.startApp()).get(QueueAdmin);
    expect(await errorOf(() => admin.getJobsByKey('bad name!', 'k'))).toBeInstanceOf(InvalidQueueNameError);
    expect(await errorOf(() => admin.getJobsByKey('work', ''))).toBeInstanceOf(InvalidArgumentError);
    expect(await errorOf(() => admin.getJobsByKey('work', 42 as unknown as string))).toBeInstanceOf(InvalidArgumentError);
    expect(await errorOf(() => admin.getJobsByKey('work', 'k', { limit: 0 }))).toBeInstanceOf(InvalidArgumentError);
    expect(await errorOf(() => admin.getJobsByKey('work', 'k', { limit: 1001 }))).toBeInstanceOf(InvalidArgumentError);
  });
});
