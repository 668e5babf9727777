/**
 * `SqliteQueueModule.registerQueue` / `registerQueueAsync` and `@InjectQueue`: a per-queue handle in BullMQ's shape
 * (add(name, data, options)), typed by the queue's data and result, beside `QueueProducer`; and the optional type
 * registry (declaration merging) that checks `producer.add(queue, data)` by queue name (compile-time checks below
 * run through `tsc --noEmit`, which `npm test` runs over test/).
 */
import { Injectable, Module } from '@nestjs/common';
import {
  InjectQueue,
  InvalidJobOptionsError,
  InvalidModuleOptionsError,
  InvalidQueueNameError,
  Job,
  Queue,
  QueueAdmin,
  QueueProducer,
  SqliteQueueModule,
  getQueueToken,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

interface Mail {
  to: string;
}

declare module '../lib' {
  interface QueueRegistry {
    'handle-typed': { data: Mail; result: string };
  }
}

@Injectable()
class SignupService {
  constructor(
    @InjectQueue('handle-mail') readonly mail: Queue<Mail, string>,
    @InjectQueue('handle-async') readonly asyncQueue: Queue<Mail>,
  ) {}
}

@Module({
  imports: [
    SqliteQueueModule.registerQueue({ name: 'handle-mail', defaultJobOptions: { priority: 5, maxAttempts: 4 } }),
    SqliteQueueModule.registerQueueAsync({ name: 'handle-async', useFactory: () => ({ defaultJobOptions: { delay: 60_000 } }) }),
  ],
  providers: [SignupService],
})
class SignupModule {}

/** Compile-time checks of the registry and the handle's types; called by no test, checked by tsc. */
export async function typeChecks(producer: QueueProducer, mail: Queue<Mail, string>): Promise<void> {
  const typed = await producer.add('handle-typed', { to: 'ada' });
  const to: string = typed.data.to;
  // @ts-expect-error a declared queue's data is checked by name
  await producer.add('handle-typed', { too: 'ada' });
  // @ts-expect-error and so is every bulk item's
  await producer.addBulk('handle-typed', [{ data: { to: 1 } }]);
  // Undeclared queues stay as they were: inferred, or the type argument given.
  const loose: number = (await producer.add('handle-loose', { n: 1 })).data.n;
  const explicit: number = (await producer.add<{ a: number }>('handle-loose', { a: 1 })).data.a;
  // @ts-expect-error the handle's data type
  await mail.add('welcome', { to: 1 });
  const result: string | null | undefined = (await mail.getJob('1'))?.result;
  // A handle's job is waited for as the producer's is, typed by the queue's result.
  const waited: string | null = (await (await mail.add('welcome', { to: 'ada' })).waitUntilFinished()).result;
  const bulkWaited: string | null = (await (await mail.addBulk([{ name: 'digest', data: { to: 'eve' } }]))[0].waitUntilFinished()).result;
  void [to, loose, explicit, result, waited, bulkWaited];
}

describeEachBackend('registerQueue and @InjectQueue', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let handled: Job<Mail>[];
  const start = () => {
    handled = [];
    const Processor = defineProcessor<Mail>('handle-mail', async (job) => {
      handled.push(job);
      return `${job.name}:${job.data.to}`;
    });
    return current.startApp({ module: { pollInterval: 50 }, imports: [SignupModule], providers: [Processor] });
  };

  it('adds named jobs with the queue defaults under each job own options, and the handler sees the name', async () => {
    const app = await start();
    const { mail } = app.get(SignupService);
    expect(mail).toBeInstanceOf(Queue);
    expect(mail.name).toBe('handle-mail');
    expect(app.get(getQueueToken('handle-mail'), { strict: false })).toBe(mail);

    const welcome = await mail.add('welcome', { to: 'ada' });
    const urgent = await mail.add('reset', { to: 'bob' }, { priority: 9 });
    expect([welcome.name, welcome.priority, welcome.maxAttempts, urgent.priority]).toEqual(['welcome', 5, 4, 9]);
    const bulk = await mail.addBulk([
      { name: 'digest', data: { to: 'eve' } },
      { name: 'digest', data: { to: 'mallory' }, options: { maxAttempts: 1 } },
    ]);
    expect(bulk.map((job) => [job.name, job.maxAttempts])).toEqual([
      ['digest', 4],
      ['digest', 1],
    ]);
    // What the handle returns is waited for as what QueueProducer.add returns is.
    expect((await welcome.waitUntilFinished({ timeout: 10_000 })).result).toBe('welcome:ada');
    expect((await bulk[1].waitUntilFinished({ timeout: 10_000 })).result).toBe('digest:mallory');
    await waitFor(async () => (await mail.getCounts()).completed === 4, 'four jobs completed');
    expect(handled.map((job) => job.name).sort()).toEqual(['digest', 'digest', 'reset', 'welcome']);
    expect(await mail.getJob(welcome.id)).toMatchObject({ name: 'welcome', result: 'welcome:ada', queue: 'handle-mail' });
    expect((await mail.getJobs({ name: 'digest' })).map((job) => job.data.to)).toEqual(['mallory', 'eve']);
  });

  it('inspects and controls only its own queue: getJob of another queue is null; pause, resume, clean, schedules', async () => {
    const app = await start();
    const { mail, asyncQueue } = app.get(SignupService);
    const other = await app.get(QueueProducer).add('handle-other', { to: 'x' });
    expect(await mail.getJob(other.id)).toBeNull();
    expect(await mail.getJobLogs(other.id)).toBeNull();
    expect(await app.get(QueueAdmin).getJob(other.id)).not.toBeNull();

    await mail.pause();
    const held = await mail.add('held', { to: 'zed' });
    expect((await app.get(QueueAdmin).listQueues()).find((queue) => queue.name === 'handle-mail')?.paused).toBe(true);
    await mail.resume();
    await waitFor(async () => (await mail.getJob(held.id))?.status === 'completed', 'held job ran after resume');
    expect(await mail.clean({ status: 'completed' })).toBe(1);

    await mail.upsertSchedule('nightly', { every: 50, data: { to: 'ops' } });
    await waitFor(() => handled.some((job) => job.name === 'nightly' && job.data.to === 'ops'), 'scheduled job ran');
    expect(await mail.removeSchedule('nightly')).toBe(true);

    // registerQueueAsync's defaults: a delay of a minute.
    const later = await asyncQueue.add('later', { to: 'kim' });
    expect(later.runAt.getTime() - later.createdAt.getTime()).toBeGreaterThanOrEqual(59_000);
  });

  it('refuses bad jobs like add() does, and BullMQ-shaped mistakes (opts, name in options), writing nothing', async () => {
    const app = await start();
    const { mail } = app.get(SignupService);
    await mail.pause();
    expect(await errorOf(() => mail.add('', { to: 'a' }))).toBeInstanceOf(InvalidJobOptionsError);
    expect(await errorOf(() => mail.add('x', { to: 'a' }, { name: 'y' } as never))).toBeInstanceOf(InvalidJobOptionsError);
    const bulk = await errorOf(() => mail.addBulk([{ name: 'a', data: { to: 'a' } }, { name: 'b', data: { to: 'b' }, opts: {} } as never]));
    expect(bulk).toBeInstanceOf(InvalidJobOptionsError);
    expect((bulk as Error).message).toContain('jobs[1].opts');
    expect((await mail.getCounts()).pending).toBe(0);
  });

  it('fails boot on a bad registration: queue name, unknown or non-defaultable options, invalid defaults', async () => {
    const cases: [Parameters<typeof SqliteQueueModule.registerQueue>[0], unknown][] = [
      [{ name: 'bad name!' }, InvalidQueueNameError],
      [{ name: 'ok', defaultJobOptions: { key: 'k' } as never }, InvalidModuleOptionsError],
      [{ name: 'ok', defaultJobOptions: { maxAttempts: 0 } }, InvalidModuleOptionsError],
      [{ name: 'ok', defaultJobs: {} } as never, InvalidModuleOptionsError],
    ];
    for (const [registration, type] of cases) {
      const failure = await errorOf(async () => {
        const app = await current.compileApp({ imports: [SqliteQueueModule.registerQueue(registration)] });
        await current.close(app);
      });
      expect(failure).toBeInstanceOf(type);
    }
  });
});
