import { TestingModule } from '@nestjs/testing';
import { InvalidJobDataError, InvalidJobOptionsError, Job, JobNotRunningError, QueueAdmin, QueueProducer } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

type Step = { step: 'log' | 'many' | 'long' | 'update' | 'bad-update' | 'ok' | 'fail'; page?: number };

/** `job.log()`, `job.updateData()` and per-job removal, through the public API. */
describeEachBackend('job logs, updateData and per-job removal', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let app: TestingModule;
  let kept: Job<Step>[];
  let outcomes: string[];
  beforeEach(async () => {
    kept = [];
    outcomes = [];
    const Work = defineProcessor<Step>(
      'work',
      async (job) => {
        kept.push(job);
        switch (job.data.step) {
          case 'log':
            await job.log(`attempt ${job.attempt} started`);
            if (job.attempt === 1) throw new Error('first attempt fails');
            await job.log('done');
            return 'ok';
          case 'many':
            for (let i = 1; i <= 105; i++) await job.log(`line ${i}`);
            return 'ok';
          case 'long':
            await job.log('x'.repeat(1500));
            await job.log('nul\u0000 and half \uD83D');
            return 'ok';
          case 'update':
            // A retry resumes where the previous attempt got to.
            if (job.attempt === 1) {
              await job.updateData({ step: 'update', page: 7 });
              outcomes.push(`after update: ${job.data.page}`);
              throw new Error('crash after page 7');
            }
            outcomes.push(`resumed at ${job.data.page}`);
            return job.data.page;
          case 'bad-update': {
            const error = await errorOf(() => job.updateData({ step: 'ok', when: new Date() } as never));
            outcomes.push(error instanceof InvalidJobDataError ? 'InvalidJobDataError' : `other: ${String(error)}`);
            return job.data.step;
          }
          case 'ok':
            return 'fine';
          case 'fail':
            throw new Error('always');
        }
      },
      { backoff: { type: 'fixed', delay: 0 }, maxAttempts: 2 },
    );
    app = await current.startApp({ module: { pollInterval: 50 }, providers: [Work] });
  });
  const admin = () => app.get(QueueAdmin);
  const producer = () => app.get(QueueProducer);
  const finished = (id: string) =>
    waitFor(async () => ['completed', 'failed', undefined].includes((await admin().getJob(id))?.status), `job ${id} finished`);

  it('keeps log lines across attempts, in order, readable with getJobLogs; unknown ids give null', async () => {
    const job = await producer().add('work', { step: 'log' } as Step);
    await finished(job.id);
    expect(await admin().getJobLogs(job.id)).toEqual(['attempt 1 started', 'attempt 2 started', 'done']);
    const other = await producer().add('work', { step: 'ok' } as Step);
    await finished(other.id);
    expect(await admin().getJobLogs(other.id)).toEqual([]);
    expect(await admin().getJobLogs('999999')).toBeNull();
    expect(await admin().getJobLogs('not-an-id')).toBeNull();
  });

  it('bounds the log: the newest 100 lines, each cut at 1,000 characters, unstorable characters replaced', async () => {
    const many = await producer().add('work', { step: 'many' } as Step);
    const long = await producer().add('work', { step: 'long' } as Step);
    await finished(many.id);
    await finished(long.id);
    const lines = (await admin().getJobLogs(many.id))!;
    expect(lines).toHaveLength(100);
    expect([lines[0], lines[99]]).toEqual(['line 6', 'line 105']);
    const [cut, cleaned] = (await admin().getJobLogs(long.id))!;
    expect(cut).toBe(`${'x'.repeat(1000)}… [500 more characters cut]`);
    expect(cleaned).toBe('nul\uFFFD and half \uFFFD');
  });

  it('log and updateData reject with JobNotRunningError outside the running attempt, writing nothing', async () => {
    const fresh = await producer().add('work', { step: 'ok' } as Step);
    expect(await errorOf(() => fresh.log('no'))).toBeInstanceOf(JobNotRunningError);
    expect(await errorOf(() => fresh.updateData({ step: 'fail' }))).toBeInstanceOf(JobNotRunningError);
    await finished(fresh.id);
    expect(await errorOf(() => kept[0].log('late'))).toBeInstanceOf(JobNotRunningError);
    expect(await errorOf(() => kept[0].updateData({ step: 'fail' }))).toBeInstanceOf(JobNotRunningError);
    expect(await admin().getJobLogs(fresh.id)).toEqual([]);
    expect((await admin().getJob(fresh.id))?.data).toEqual({ step: 'ok' });
  });

  it('updateData stores new data that the job shows at once and the next attempt receives; invalid data is refused', async () => {
    const job = await producer().add('work', { step: 'update' } as Step);
    await finished(job.id);
    expect(outcomes).toEqual(['after update: 7', 'resumed at 7']);
    expect(await admin().getJob(job.id)).toMatchObject({ status: 'completed', result: 7, data: { step: 'update', page: 7 } });

    const bad = await producer().add('work', { step: 'bad-update' } as Step);
    await finished(bad.id);
    expect(outcomes[2]).toBe('InvalidJobDataError');
    expect((await admin().getJob(bad.id))?.data).toEqual({ step: 'bad-update' });
  });

  it('removeOnComplete / removeOnFail delete that job once it reaches that outcome, and only that job', async () => {
    const gone = await producer().add('work', { step: 'ok' } as Step, { removeOnComplete: true });
    const keptDone = await producer().add('work', { step: 'ok' } as Step, { removeOnFail: true });
    const goneFailed = await producer().add('work', { step: 'fail' } as Step, { removeOnFail: true });
    const keptFailed = await producer().add('work', { step: 'fail' } as Step, { removeOnComplete: true });
    await waitFor(async () => (await admin().getJob(gone.id)) === null, 'completed job removed');
    await waitFor(async () => (await admin().getJob(goneFailed.id)) === null, 'failed job removed');
    await finished(keptFailed.id);
    expect(await admin().getJob(keptDone.id)).toMatchObject({ status: 'completed' });
    expect(await admin().getJob(keptFailed.id)).toMatchObject({ status: 'failed', attempts: 2 });
    expect(await errorOf(() => producer().add('work', {}, { removeOnComplete: 1 } as never))).toBeInstanceOf(InvalidJobOptionsError);
  });
});
