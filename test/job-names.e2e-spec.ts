import { TestingModule } from '@nestjs/testing';
import {
  getQueueToken,
  InvalidArgumentError,
  InvalidJobOptionsError,
  InvalidScheduleError,
  Job,
  Queue,
  QueueAdmin,
  QueueProducer,
  SqliteQueueModule,
} from '../lib';
import { jobCounts } from './support/job-counts';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

/** One queue, several kinds of job: the handler routes on `job.name`, as with BullMQ. */
describeEachBackend('job names', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let app: TestingModule;
  let seen: { id: string; name: string | null; data: unknown }[];
  beforeEach(async () => {
    seen = [];
    const Mail = defineProcessor('mail', async (job: Job) => {
      seen.push({ id: job.id, name: job.name, data: job.data });
      return job.name === 'welcome' ? 'hello' : 'other';
    });
    app = await current.startApp({
      module: { pollInterval: 50 },
      providers: [Mail],
      imports: [SqliteQueueModule.registerQueue({ name: 'mail' })],
    });
  });
  const admin = () => app.get(QueueAdmin);
  const producer = () => app.get(QueueProducer);

  it('carries the name from add and addBulk to the handler, the returned job and JobInfo; none is null', async () => {
    const welcome = await producer().add('mail', { to: 'ada' }, { name: 'welcome' });
    const [reset, plain] = await producer().addBulk('mail', [
      { data: { to: 'bob' }, options: { name: 'password-reset' } },
      { data: { to: 'eve' } },
    ]);
    expect([welcome.name, reset.name, plain.name]).toEqual(['welcome', 'password-reset', null]);
    await waitFor(() => seen.length === 3, 'three jobs handled');
    expect(Object.fromEntries(seen.map((job) => [job.id, job.name]))).toEqual({
      [welcome.id]: 'welcome',
      [reset.id]: 'password-reset',
      [plain.id]: null,
    });
    await waitFor(async () => (await admin().getCounts('mail')).completed === 3, 'all completed');
    expect(await admin().getJob(welcome.id)).toMatchObject({ name: 'welcome', result: 'hello', data: { to: 'ada' } });
    expect(await admin().getJob(plain.id)).toMatchObject({ name: null, result: 'other' });
  });

  it('filters getJobs by name, alone and with a status', async () => {
    await admin().pause('mail');
    const a = await producer().add('mail', { n: 1 }, { name: 'a' });
    const b = await producer().add('mail', { n: 2 }, { name: 'b' });
    const a2 = await producer().add('mail', { n: 3 }, { name: 'a' });
    await producer().add('mail', { n: 4 });
    expect((await admin().getJobs('mail', { name: 'a' })).map((job) => job.id)).toEqual([a2.id, a.id]);
    expect((await admin().getJobs('mail', { name: 'b', status: 'pending' })).map((job) => job.id)).toEqual([b.id]);
    expect(await admin().getJobs('mail', { name: 'b', status: 'completed' })).toEqual([]);
    await admin().resume('mail');
    await waitFor(async () => (await admin().getCounts('mail')).completed === 4, 'all completed');
    expect((await admin().getJobs('mail', { name: 'a', status: 'completed' })).map((job) => job.id)).toEqual([a2.id, a.id]);
    expect(await errorOf(() => admin().getJobs('mail', { name: '' }))).toBeInstanceOf(InvalidArgumentError);
  });

  it('counts by name with getCounts(queue, { name }), exactly, past the largest page getJobs returns', async () => {
    // Paused: the counts are of jobs that stay put (every status by name is the storage contract's).
    await admin().pause('mail');
    await producer().addBulk('mail', [
      ...Array.from({ length: 1001 }, () => ({ data: {}, options: { name: 'newsletter' } })),
      ...Array.from({ length: 3 }, () => ({ data: {}, options: { name: 'reset' } })),
      { data: {} },
    ]);
    await producer().add('other', {}, { name: 'newsletter' });
    expect(await admin().getCounts('mail', { name: 'newsletter' })).toEqual(jobCounts({ pending: 1001 }));
    expect(await admin().getCounts('mail', { name: 'reset' })).toEqual(jobCounts({ pending: 3 }));
    expect(await admin().getCounts('mail', { name: 'nobody' })).toEqual(jobCounts());
    expect(await admin().getCounts('mail', {})).toEqual(jobCounts({ pending: 1005 }));
    expect(await app.get<Queue>(getQueueToken('mail')).getCounts({ name: 'reset' })).toEqual(jobCounts({ pending: 3 }));
  });

  it('refuses getCounts options that are not { name } with a well-formed name, and a name without a queue, with InvalidArgumentError', async () => {
    const refused: [string | undefined, unknown, string][] = [
      ['mail', { status: 'completed' }, 'option "status" is not an option'],
      ['mail', { name: 'a', limit: 1 }, 'option "limit" is not an option'],
      ['mail', 'newsletter', 'options must be an object'],
      ['mail', null, 'options must be an object'],
      ['mail', ['newsletter'], 'options must be an object'],
      ['mail', { name: '' }, 'name must be a non-empty string'],
      ['mail', { name: 42 }, 'name must be a non-empty string'],
      ['mail', { name: 'x'.repeat(257) }, 'name must be a non-empty string'],
      ['mail', { name: 'a\u0000b' }, 'name'],
      [undefined, { name: 'newsletter' }, 'name needs a queue'],
    ];
    for (const [queue, options, message] of refused) {
      const error = await errorOf(() => admin().getCounts(queue, options as never));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ method: 'getCounts' });
      expect((error as Error).message).toContain(message);
    }
  });

  it('refuses a name that is not 1 to 256 storable characters with InvalidJobOptionsError, writing nothing', async () => {
    await admin().pause('mail');
    for (const name of ['', 'x'.repeat(257), 'a\u0000b', 'half \uD83D', 42, null]) {
      const error = await errorOf(() => producer().add('mail', {}, { name } as never));
      expect(error).toBeInstanceOf(InvalidJobOptionsError);
      expect((error as Error).message).toContain('name');
    }
    expect(await errorOf(() => producer().addBulk('mail', [{ data: {} }, { data: {}, options: { name: '' } }]))).toBeInstanceOf(
      InvalidJobOptionsError,
    );
    expect((await admin().getCounts('mail')).pending).toBe(0);
    expect((await producer().add('mail', {}, { name: 'é'.repeat(256) })).name).toBe('é'.repeat(256));
  });

  it('names the jobs of a schedule after the schedule, or after jobOptions.name', async () => {
    await producer().upsertSchedule('mail', 'digest', { every: 100, data: { kind: 'digest' } });
    await producer().upsertSchedule('mail', 'tick', { every: 100, jobOptions: { name: 'heartbeat' } });
    await waitFor(() => seen.some((job) => job.name === 'digest') && seen.some((job) => job.name === 'heartbeat'), 'both schedules ran');
    await producer().removeSchedule('mail', 'digest');
    await producer().removeSchedule('mail', 'tick');
    expect(seen.filter((job) => job.name === 'digest').every((job) => (job.data as { kind: string }).kind === 'digest')).toBe(true);
    expect(await errorOf(() => producer().upsertSchedule('mail', 'bad', { every: 100, jobOptions: { name: '' } }))).toBeInstanceOf(
      InvalidScheduleError,
    );
  });
});
