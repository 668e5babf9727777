/**
 * No silent option (issue 29 item 6): every options object of `QueueAdmin`, `QueueProducer` and a `Queue` handle
 * refuses a key it does not know with its typed error, naming the key and the known one it resembles, and writes
 * nothing. `getJobs(queue, { serach: 'x' })` used to list every job, so the caller believed it had filtered.
 */
import {
  InvalidArgumentError,
  InvalidJobOptionsError,
  InvalidScheduleError,
  Queue,
  QueueAdmin,
  QueueProducer,
  SqliteQueueModule,
  getQueueToken,
} from '../lib';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { errorOf } from './support/ops';

/** Any options object with a misspelt key: the tests pass what a JavaScript caller (or a cast) could. */
const typo = <T>(options: Record<string, unknown>) => options as T;

describeEachBackend('unknown option keys are refused, with a "did you mean"', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  async function start() {
    const app = await current.startApp({ imports: [SqliteQueueModule.registerQueue({ name: 'opts' })] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const queue = app.get<Queue>(getQueueToken('opts'));
    const job = await producer.add('opts', { n: 1 });
    return { producer, admin, queue, job };
  }

  it('QueueAdmin: every method that takes options names the unknown key and the one it resembles', async () => {
    const { admin, job } = await start();
    const cases: [string, () => Promise<unknown>, string, string][] = [
      ['getJobs', () => admin.getJobs('opts', typo({ serach: 'x' })), 'serach', 'search'],
      ['getJobs', () => admin.getJobs('opts', typo({ stauts: 'failed' })), 'stauts', 'status'],
      ['getCounts', () => admin.getCounts('opts', typo({ nmae: 'a' })), 'nmae', 'name'],
      ['getJobsByKey', () => admin.getJobsByKey('opts', 'k', typo({ limt: 5 })), 'limt', 'limit'],
      ['clean', () => admin.clean('opts', typo({ status: 'completed', olderThen: 5 })), 'olderThen', 'olderThan'],
      ['retryAll', () => admin.retryAll('opts', typo({ report: true, reprot: true })), 'reprot', 'report'],
      ['cancel', () => admin.cancel(job.id, typo({ cascde: true })), 'cascde', 'cascade'],
      ['remove', () => admin.remove(job.id, typo({ cascde: true })), 'cascde', 'cascade'],
      ['getMetrics', () => admin.getMetrics(typo({ windowMinute: 5 })), 'windowMinute', 'windowMinutes'],
      ['waitUntilFinished', () => admin.waitUntilFinished(job.id, typo({ timout: 5 })), 'timout', 'timeout'],
      ['waitUntilIdle', () => admin.waitUntilIdle('opts', typo({ timout: 5 })), 'timout', 'timeout'],
    ];
    for (const [method, call, key, suggestion] of cases) {
      const error = await errorOf(call);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error.message).toContain(`QueueAdmin.${method}()`);
      expect(error.message).toContain(`"${key}" is not an option (did you mean "${suggestion}"?)`);
    }
    // A key resembling nothing is named with the known ones, without a guess.
    const unrelated = await errorOf(() => admin.getJobs('opts', typo({ zzzzzzzz: 1 })));
    expect(unrelated.message).toContain('"zzzzzzzz" is not an option; known: status, name, group, search, limit, offset');
    // Nothing was done: the job the cancel and remove named is still pending.
    expect((await admin.getJob(job.id))?.status).toBe('pending');
    // The known keys still work.
    expect(await admin.getJobs('opts', { status: 'pending', limit: 5, offset: 0 })).toHaveLength(1);
  });

  it("QueueProducer: add, addBulk, addFlow, upsertSchedule and an enqueued job's waitUntilFinished; nothing is written", async () => {
    const { producer, admin, job } = await start();
    const add = await errorOf(() => producer.add('opts', {}, typo({ dely: 5 })));
    expect(add).toBeInstanceOf(InvalidJobOptionsError);
    expect(add.message).toContain('option dely for queue "opts": is not an option (did you mean "delay"?)');
    const bulk = await errorOf(() => producer.addBulk('opts', [{ data: {} }, { data: {}, options: typo({ priorty: 1 }) }]));
    expect(bulk).toBeInstanceOf(InvalidJobOptionsError);
    expect(bulk.message).toContain('option items[1].priorty for queue "opts": is not an option (did you mean "priority"?)');
    const flow = await errorOf(() => producer.addFlow({ queue: 'opts', data: {} }, typo({ manger: undefined })));
    expect(flow).toBeInstanceOf(InvalidArgumentError);
    expect(flow.message).toContain('"manger" is not an option (did you mean "manager"?)');
    const schedule = await errorOf(() => producer.upsertSchedule('opts', 'tick', typo<{ every: number }>({ every: 1000, timezon: 'UTC' })));
    expect(schedule).toBeInstanceOf(InvalidScheduleError);
    expect(schedule.message).toContain('"timezon" is not an option (did you mean "timezone"?)');
    const wait = await errorOf(() => job.waitUntilFinished(typo({ timout: 5 })));
    expect(wait).toBeInstanceOf(InvalidArgumentError);
    expect(wait.message).toContain('"timout" is not an option (did you mean "timeout"?)');
    expect((await admin.getCounts('opts')).pending).toBe(1);
    expect(await producer.listSchedules()).toEqual([]);
  });

  it('a Queue handle refuses them too (it passes its options on unchanged)', async () => {
    const { queue, admin } = await start();
    const add = await errorOf(() => queue.add('mail', {}, typo({ tiemout: 5 })));
    expect(add).toBeInstanceOf(InvalidJobOptionsError);
    expect(add.message).toContain('option tiemout for queue "opts": is not an option (did you mean "timeout"?)');
    const bulk = await errorOf(() => queue.addBulk([{ name: 'mail', data: {}, options: typo({ kye: 'k' }) }]));
    expect(bulk.message).toContain('is not an option (did you mean "key"?)');
    expect(await errorOf(() => queue.getJobs(typo({ serach: 'x' })))).toBeInstanceOf(InvalidArgumentError);
    expect(await errorOf(() => queue.getCounts(typo({ nmae: 'x' })))).toBeInstanceOf(InvalidArgumentError);
    expect(await errorOf(() => queue.clean(typo({ status: 'completed', olderthan: 1 })))).toBeInstanceOf(InvalidArgumentError);
    const schedule = await errorOf(() => queue.upsertSchedule('tick', typo({ evry: 1000 })));
    expect(schedule).toBeInstanceOf(InvalidScheduleError);
    expect((await admin.getCounts('opts')).pending).toBe(1);
  });
});
