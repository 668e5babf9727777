import { TestingModule } from '@nestjs/testing';
import { InvalidArgumentError, InvalidJobOptionsError, InvalidScheduleError, Job, QueueAdmin, QueueProducer } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp } from './support/backends';
import { waitFor } from './support/wait-for';

/** One queue, several kinds of job: the handler routes on `job.name`, as with BullMQ. */
describeEachBackend('job names', (backend) => {
  const current = perTestApp(backend);
  let app: TestingModule;
  let seen: { id: string; name: string | null; data: unknown }[];
  beforeEach(async () => {
    seen = [];
    const Mail = defineProcessor('mail', async (job: Job) => {
      seen.push({ id: job.id, name: job.name, data: job.data });
      return job.name === 'welcome' ? 'hello' : 'other';
    });
    app = await current.startApp({ module: { pollInterval: 50 }, providers: [Mail] });
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
