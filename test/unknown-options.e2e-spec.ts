/**
 * No silent option: every options object of `QueueAdmin`, `QueueProducer` and a `Queue` handle
 * refuses a key it does not know with its typed error, naming the key and the known one it resembles, and writes
 * nothing. `getJobs(queue, { serach: 'x' })` used to list every job, so the caller believed it had filtered.
 */
import {
  InvalidArgumentError,
  InvalidJobOptionsError,
  InvalidModuleOptionsError,
  InvalidScheduleError,
  Queue,
  QueueAdmin,
  QueueProducer,
  SqliteQueueModule,
  getQueueToken,
} from '../lib';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { describeEachBackend, perFileApp, perTestApp, MIGRATED } from './support/backends';
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
    // Not an object at all: the typed error too (null used to throw a TypeError reading its timeout).
    for (const options of [null, 'soon', [5]]) {
      const notObject = await errorOf(() => job.waitUntilFinished(typo(options as never)));
      expect(notObject).toBeInstanceOf(InvalidArgumentError);
      expect(notObject.message).toContain('QueueAdmin.waitUntilFinished()');
    }
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

/**
 * The rest of every public method's options, with nothing written: pure validation, so one app on one backend
 * (the checks run before any SQL, the same on every backend).
 */
describeEachBackend(
  'unknown option keys everywhere else: nested, non-object, and the fields of bulk items and flow nodes',
  (backend) => {
    const shared = perFileApp(backend, { imports: [SqliteQueueModule.registerQueue({ name: 'opts' })] });
    const admin = () => shared.get(QueueAdmin);
    const producer = () => shared.get(QueueProducer);
    const queue = () => shared.app.get<Queue>(getQueueToken('opts'));
    const badBackoff = typo<{ type: 'fixed'; delay: number }>({ type: 'fixed', delay: 10, maxdelay: 50 });
    const backoffTypo = '"maxdelay" is not an option (did you mean "maxDelay"?); known: type, delay, maxDelay, jitter';

    it('QueueAdmin: getGroups, redrive, getFailureGroups and exportPrometheusMetrics name the key and the one it resembles', async () => {
      const cases: [string, () => Promise<unknown>, string, string][] = [
        ['getGroups', () => admin().getGroups('opts', typo({ limt: 3 })), 'limt', 'limit'],
        ['redrive', () => admin().redrive('opts', typo({ limt: 3 })), 'limt', 'limit'],
        ['getFailureGroups', () => admin().getFailureGroups('opts', typo({ limt: 3 })), 'limt', 'limit'],
        ['exportPrometheusMetrics', () => admin().exportPrometheusMetrics(typo({ windowMinute: 5 })), 'windowMinute', 'windowMinutes'],
      ];
      for (const [method, call, key, suggestion] of cases) {
        const error = await errorOf(call);
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(error.message).toContain(`QueueAdmin.${method}()`);
        expect(error.message).toContain(`"${key}" is not an option (did you mean "${suggestion}"?)`);
      }
    });

    it('QueueAdmin: every options argument that is not an object is refused with InvalidArgumentError, naming the method', async () => {
      const calls: [string, (options: never) => Promise<unknown>][] = [
        ['getJobs', (options) => admin().getJobs('opts', options)],
        ['getCounts', (options) => admin().getCounts('opts', options)],
        ['getGroups', (options) => admin().getGroups('opts', options)],
        ['getFailureGroups', (options) => admin().getFailureGroups('opts', options)],
        ['getJobsByKey', (options) => admin().getJobsByKey('opts', 'k', options)],
        ['clean', (options) => admin().clean('opts', options)],
        ['retryAll', (options) => admin().retryAll('opts', options)],
        ['redrive', (options) => admin().redrive('opts', options)],
        ['cancel', (options) => admin().cancel('1', options)],
        ['remove', (options) => admin().remove('1', options)],
        ['getMetrics', (options) => admin().getMetrics(options)],
        ['exportPrometheusMetrics', (options) => admin().exportPrometheusMetrics(options)],
        ['waitUntilFinished', (options) => admin().waitUntilFinished('1', options)],
        ['waitUntilIdle', (options) => admin().waitUntilIdle('opts', options)],
      ];
      for (const [method, call] of calls) {
        for (const options of [null, 'x', 5]) {
          const error = await errorOf(() => call(options as never));
          expect([method, options, error]).toEqual([method, options, expect.any(InvalidArgumentError)]);
          expect(error.message).toContain(`QueueAdmin.${method}()`);
        }
      }
    });

    it('a nested backoff refuses an unknown key, wherever a job takes one', async () => {
      const refusals: [string, () => Promise<unknown>][] = [
        ['add', () => producer().add('opts', {}, { backoff: badBackoff })],
        ['addBulk', () => producer().addBulk('opts', [{ data: {}, options: { backoff: badBackoff } }])],
        [
          'addFlow',
          () => producer().addFlow({ queue: 'opts', data: {}, children: [{ queue: 'opts', data: {}, options: { backoff: badBackoff } }] }),
        ],
        ['queue.add', () => queue().add('mail', {}, { backoff: badBackoff })],
        ['queue.addBulk', () => queue().addBulk([{ name: 'mail', data: {}, options: { backoff: badBackoff } }])],
      ];
      for (const [method, call] of refusals) {
        const error = await errorOf(call);
        expect([method, error]).toEqual([method, expect.any(InvalidJobOptionsError)]);
        expect(error.message).toContain(backoffTypo);
      }
      const schedule = await errorOf(() => producer().upsertSchedule('opts', 'tick', { every: 1000, jobOptions: { backoff: badBackoff } }));
      expect(schedule).toBeInstanceOf(InvalidScheduleError);
      expect(schedule.message).toContain(`jobOptions.backoff ${backoffTypo}`);
      // The module's backoff too (a processor's goes through the same check).
      expect(() => resolveModuleOptions({ database: ':memory:', backoff: badBackoff })).toThrow(InvalidModuleOptionsError);
      expect(() => resolveModuleOptions({ database: ':memory:', backoff: badBackoff })).toThrow(backoffTypo);
    });

    it("a stray field of an addBulk item, a handle's addBulk job or a flow node is named with the field it resembles", async () => {
      const cases: [() => Promise<unknown>, string][] = [
        [
          () => producer().addBulk('opts', [typo<never>({ data: {}, optons: {} })]),
          'items[0].optons for queue "opts": is not a field of a bulk item (did you mean "options"?); known: data, options',
        ],
        // BullMQ's spelling: no typo, but what it means is known.
        [
          () => producer().addBulk('opts', [typo<never>({ data: {}, opts: {} })]),
          'items[0].opts for queue "opts": is not a field of a bulk item (did you mean "options"?)',
        ],
        [
          () => producer().addBulk('opts', [typo<never>({ data: {}, delay: 5 })]),
          'items[0].delay for queue "opts": is a job option: it goes in options (did you mean "options.delay"?)',
        ],
        [
          () => queue().addBulk([typo<never>({ name: 'mail', data: {}, opts: {} })]),
          'jobs[0].opts for queue "opts": is not a field of a job (did you mean "options"?); known: name, data, options',
        ],
        [
          () => queue().addBulk([typo<never>({ name: 'mail', data: {}, priority: 1 })]),
          'jobs[0].priority for queue "opts": is a job option: it goes in options',
        ],
        [
          () => producer().addFlow(typo<never>({ queue: 'opts', data: {}, childern: [] })),
          'flow.childern for queue "(flow)": is not a field of a flow job (did you mean "children"?); known: queue, data, options, children, onChildFailure',
        ],
        [
          () =>
            producer().addFlow({ queue: 'opts', data: {}, children: [typo<never>({ queue: 'opts', data: {}, onChildFailur: 'fail' })] }),
          'flow.children[0].onChildFailur for queue "(flow)": is not a field of a flow job (did you mean "onChildFailure"?)',
        ],
        [
          () => producer().addFlow(typo<never>({ queue: 'opts', data: {}, delay: 5 })),
          'flow.delay for queue "(flow)": is a job option: it goes in options',
        ],
      ];
      for (const [call, message] of cases) {
        const error = await errorOf(call);
        expect(error).toBeInstanceOf(InvalidJobOptionsError);
        expect(error.message).toContain(message);
      }
    });

    it("a schedule's job options name the allowed option an unknown one resembles", async () => {
      const error = await errorOf(() => producer().upsertSchedule('opts', 'tick', { every: 1000, jobOptions: typo({ priorty: 1 }) }));
      expect(error).toBeInstanceOf(InvalidScheduleError);
      expect(error.message).toContain('jobOptions.priorty is not allowed on a schedule (did you mean "priority"?); known: name, priority');
      const handle = await errorOf(() => queue().upsertSchedule('tick', { every: 1000, jobOptions: typo({ dealy: 5 }) }));
      expect(handle).toBeInstanceOf(InvalidScheduleError);
      // `delay` is a job option, but not one a schedule takes: nothing is suggested that would be refused too.
      expect(handle.message).toContain('jobOptions.dealy is not allowed on a schedule; known: name, priority');
    });
    it('wrote nothing: no job, no schedule', async () => {
      expect(await admin().getCounts()).toMatchObject({ pending: 0, running: 0, completed: 0, failed: 0 });
      expect(await producer().listSchedules()).toEqual([]);
    });
  },
  ['sqlite3'],
);
