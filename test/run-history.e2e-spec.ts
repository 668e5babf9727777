/**
 * A job's run history, through `QueueAdmin.getJob().runs` on every backend: each attempt that ended
 * other than by completing keeps its start, end, owner, outcome and error (retried, failed, timed out, lease expired,
 * snoozed, handed back at shutdown), the completing or running one is the row's own (its owner too), and the history keeps the newest
 * `MAX_STORED_RUNS`. Listings leave the field out.
 */
import { Type } from '@nestjs/common';
import { Job, JobInfo, JobRun, MAX_STORED_RUNS, QueueAdmin, QueueProducer, SnoozeError } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { rawSql } from './fixtures/legacy-schema';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { shortLeases } from './support/test-timings';
import { deferred, waitFor } from './support/wait-for';

/** A backoff no test waits for: the next attempt runs when the test promotes it, in the app the test chose. */
const LONG_BACKOFF = { type: 'fixed' as const, delay: 3_600_000 };

let gate = deferred();
/** `flaky` throws on its first two attempts; its third waits for `gate`, then completes. */
const Flaky = defineProcessor('flaky', async (job: Job) => {
  if (job.attempt < 3) throw new TypeError(`flake ${job.attempt}`);
  await gate.promise;
  return 'done';
});
/** `plain` completes at once. */
const Plain = defineProcessor('plain', async () => 'ok');
/** `stuck` waits until its signal aborts (a timeout, a shutdown), then rejects with the reason. */
const Stuck = defineProcessor('stuck', (job: Job) => {
  return new Promise((_, reject) => job.signal.addEventListener('abort', () => reject(job.signal.reason as Error)));
});

/** Each run's outcome, attempt and owner, for one comparison. */
function shape(runs: JobRun[] | undefined): [string, number, string | null][] {
  return (runs ?? []).map((run) => [run.outcome, run.attempt, run.owner]);
}

describeEachBackend('run history (JobInfo.runs)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  /** An app whose process is named `workerId`, with these processors. */
  const start = (workerId: string, providers: Type[], module: Record<string, unknown> = {}) =>
    current.startApp({ module: { workerId, pollInterval: 50, ...module }, providers });

  it('keeps each failed attempt with its own times, owner and error; the running and the completing run are the row', async () => {
    gate = deferred();
    const a = await start('worker-a', [Flaky]);
    const job = await a.get(QueueProducer).add('flaky', { n: 1 }, { maxAttempts: 3, backoff: LONG_BACKOFF });
    const attemptDone = async (admin: QueueAdmin, n: number) =>
      waitFor(async () => {
        const info = await admin.getJob(job.id);
        return info?.status === 'pending' && info.attempts === n && info.error?.attempt === n;
      }, `attempt ${n} failed`);
    await attemptDone(a.get(QueueAdmin), 1);
    await current.close(a);

    const b = await start('worker-b', [Flaky]);
    await b.get(QueueAdmin).promote(job.id);
    await attemptDone(b.get(QueueAdmin), 2);
    await current.close(b);

    const c = await start('worker-c', [Flaky]);
    const admin = c.get(QueueAdmin);
    await admin.promote(job.id);
    // Running, and started: a job claimed and not yet given to its handler has no run of its own yet.
    await waitFor(async () => {
      const info = await admin.getJob(job.id);
      return info?.status === 'running' && info.startedAt !== null;
    }, 'attempt 3 runs');
    const running = (await admin.getJob(job.id))!;
    expect(shape(running.runs)).toEqual([
      ['retried', 1, 'worker-a'],
      ['retried', 2, 'worker-b'],
      ['running', 3, 'worker-c'],
    ]);
    expect(running.runs![2]).toMatchObject({ startedAt: running.startedAt, endedAt: null, error: null });

    gate.resolve();
    const done = await admin.waitUntilFinished(job.id, { timeout: 30_000 });
    expect(done.status).toBe('completed');
    const info = (await admin.getJob(job.id))!;
    const runs = info.runs!;
    expect(shape(runs)).toEqual([
      ['retried', 1, 'worker-a'],
      ['retried', 2, 'worker-b'],
      // The completion keeps the owner the claim wrote: no statement more, and the run names its process.
      ['completed', 3, 'worker-c'],
    ]);
    // Nothing holds a completed job, though its last run had an owner.
    expect(info.lockedBy).toBeNull();
    expect(runs.map((run) => run.error && `${run.error.name}: ${run.error.message}`)).toEqual([
      'TypeError: flake 1',
      'TypeError: flake 2',
      null,
    ]);
    // Each run's own error, without the earlier ones nested in it.
    expect(runs[1].error).not.toHaveProperty('previous');
    expect(runs[2]).toMatchObject({ startedAt: info.startedAt, endedAt: info.finishedAt });
    // Distinct, ordered times: each run started after the one before ended.
    for (const run of runs) expect(run.endedAt!.getTime()).toBeGreaterThanOrEqual(run.startedAt!.getTime());
    for (let i = 1; i < runs.length; i++) expect(runs[i].startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1].endedAt!.getTime());
    expect(new Set(runs.map((run) => run.startedAt!.getTime())).size).toBe(3);

    // Listings leave the history out; getJob alone reads it.
    const [listed] = await admin.getJobs('flaky');
    expect(listed.id).toBe(job.id);
    expect(listed.runs).toBeUndefined();
  });

  it('records snoozes as runs of the same attempt, and keeps only the newest MAX_STORED_RUNS', async () => {
    let seen = 0;
    const Snoozer = defineProcessor<{ snoozes: number }>('snoozer', async (job) => {
      if (++seen <= job.data.snoozes) throw new SnoozeError(1);
      return 'awake';
    });
    const app = await start('sleeper', [Snoozer]);
    const admin = app.get(QueueAdmin);
    const few = await app.get(QueueProducer).add('snoozer', { snoozes: 2 });
    await admin.waitUntilFinished(few.id, { timeout: 30_000 });
    const info = (await admin.getJob(few.id))!;
    expect(shape(info.runs)).toEqual([
      ['snoozed', 1, 'sleeper'],
      ['snoozed', 1, 'sleeper'],
      ['completed', 1, 'sleeper'],
    ]);
    expect(info.runs![0].error).toBeNull();

    seen = 0;
    const many = await app.get(QueueProducer).add('snoozer', { snoozes: MAX_STORED_RUNS + 5 });
    await admin.waitUntilFinished(many.id, { timeout: 60_000 });
    const bounded = (await admin.getJob(many.id))!;
    expect(bounded.snoozes).toBe(MAX_STORED_RUNS + 5);
    expect(bounded.runs).toHaveLength(MAX_STORED_RUNS + 1);
    expect(bounded.runs!.slice(0, MAX_STORED_RUNS).every((run) => run.outcome === 'snoozed')).toBe(true);
    // The oldest went first: the runs kept are the newest, in order.
    const starts = bounded.runs!.map((run) => run.startedAt!.getTime());
    expect([...starts].sort((x, y) => x - y)).toEqual(starts);
  });

  it('records a lease that expired with the owner that held it, and the run that took the job back', async () => {
    const observer = await current.startApp({ module: { processing: false } });
    const job = await observer.get(QueueProducer).add('plain', {});
    await current.close(observer);
    // What a process killed -9 leaves: its job running under a lease that ran out long ago.
    await rawSql(current.db, [
      `UPDATE {schema}.nest_queue_jobs SET status = 'running', attempts = 1, locked_by = 'killed-worker', lease_until = 1, started_at = 1000 WHERE id = ${Number(job.id)}`,
    ]);
    const app = await start('rescuer', [Plain], shortLeases(backend));
    const admin = app.get(QueueAdmin);
    await admin.waitUntilFinished(job.id, { timeout: 30_000 });
    const info = (await admin.getJob(job.id))!;
    expect(shape(info.runs)).toEqual([
      ['lease-expired', 1, 'killed-worker'],
      ['completed', 2, 'rescuer'],
    ]);
    expect(info.runs![0].startedAt).toEqual(new Date(1000));
    expect(info.runs![0].error).toMatchObject({ name: 'LeaseExpiredError', attempt: 1 });
    expect(info.runs![0].error!.message).toContain('killed-worker');
  });

  it('records a timeout, retried then final, as timed-out with its JobTimeoutError', async () => {
    const app = await start('timer', [Stuck]);
    const admin = app.get(QueueAdmin);
    const job = await app.get(QueueProducer).add('stuck', {}, { timeout: 50, maxAttempts: 2, backoff: { type: 'fixed', delay: 0 } });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job timed out twice');
    const info = (await admin.getJob(job.id))!;
    expect(shape(info.runs)).toEqual([
      ['timed-out', 1, 'timer'],
      ['timed-out', 2, 'timer'],
    ]);
    expect(info.runs!.map((run) => run.error?.name)).toEqual(['JobTimeoutError', 'JobTimeoutError']);
    expect(info.runs![1].endedAt).toEqual(info.finishedAt);
  });

  it('gives each life of an attempt number its own error when an operator retried the job', async () => {
    let calls = 0;
    const Failing = defineProcessor('failing', async () => {
      throw new RangeError(`life ${++calls}`);
    });
    const app = await start('retrier', [Failing]);
    const admin = app.get(QueueAdmin);
    const job = await app.get(QueueProducer).add('failing', {}, { maxAttempts: 1 });
    const failedLife = (life: number) =>
      waitFor(async () => (await admin.getJob(job.id))?.error?.message === `life ${life}`, `life ${life} failed`);
    await failedLife(1);
    // The retry starts the job over at attempt 1: both lives have a run of attempt 1.
    await admin.retry(job.id);
    await failedLife(2);
    const info = (await admin.getJob(job.id))!;
    expect(shape(info.runs)).toEqual([
      ['failed', 1, 'retrier'],
      ['failed', 1, 'retrier'],
    ]);
    expect(info.runs!.map((run) => run.error?.message)).toEqual(['life 1', 'life 2']);
  });

  it('records a hand-back at shutdown with the process that handed it back, and an operator cancel as the row', async () => {
    const app = await start('leaver', [Stuck], { shutdownTimeout: 100 });
    const job = await app.get(QueueProducer).add('stuck', {});
    await waitFor(async () => (await app.get(QueueAdmin).getJob(job.id))?.status === 'running', 'the job runs');
    await current.close(app);

    const next = await start('stayer', [Stuck]);
    const admin = next.get(QueueAdmin);
    await waitFor(async () => {
      const info = await admin.getJob(job.id);
      return info?.status === 'running' && info.startedAt !== null;
    }, 'the job runs again');
    let info: JobInfo = (await admin.getJob(job.id))!;
    expect(shape(info.runs)).toEqual([
      ['handed-back', 1, 'leaver'],
      ['running', 1, 'stayer'],
    ]);
    expect(info.runs![0].endedAt).not.toBeNull();

    await admin.cancel(job.id);
    info = (await admin.getJob(job.id))!;
    expect(shape(info.runs)).toEqual([
      ['handed-back', 1, 'leaver'],
      ['cancelled', 1, 'stayer'],
    ]);
    expect(info.runs![1].endedAt).toEqual(info.finishedAt);
  });
});
