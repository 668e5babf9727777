import { join } from 'node:path';
import { TestingModule } from '@nestjs/testing';
import { Subscription } from 'rxjs';
import {
  InvalidJobStateError,
  Job,
  JobCancelledError,
  JobNotFoundError,
  OnJobEvent,
  Processor,
  QueueAdmin,
  QueueEvent,
  QueueEvents,
  QueueProcessor,
  QueueProducer,
  SqliteQueueModuleOptions,
} from '../lib';
import type { AbortRecord, OpsJobData } from './fixtures/ops-app';
import { ChildApp, readLines, readRunLog, startChildApp } from './support/child-app';
import { errorOf, readJsonLines, startOpsApp } from './support/ops';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

type Mode = 'ok' | 'fail' | 'failOnce' | 'hold' | 'abortable';
interface CtlData {
  mode: Mode;
  n?: number;
}

/** What the in-process handlers saw; reset before each test. */
const state = {
  ran: [] as string[],
  failedOnce: new Set<string>(),
  gates: new Map<string, ReturnType<typeof deferred<void>>>(),
  started: new Map<string, ReturnType<typeof deferred<AbortSignal>>>(),
  returned: new Map<string, ReturnType<typeof deferred<void>>>(),
};

const gateOf = (id: string) => state.gates.get(id) ?? state.gates.set(id, deferred()).get(id)!;
const startedOf = (id: string) => state.started.get(id) ?? state.started.set(id, deferred<AbortSignal>()).get(id)!;
const returnedOf = (id: string) => state.returned.get(id) ?? state.returned.set(id, deferred()).get(id)!;

@Processor('ctl', { concurrency: 2, backoff: { type: 'fixed', delay: 0 } })
class ControlledProcessor implements QueueProcessor<CtlData, unknown> {
  readonly heard: QueueEvent[] = [];

  async process(job: Job<CtlData>): Promise<unknown> {
    state.ran.push(job.id);
    startedOf(job.id).resolve(job.signal);
    try {
      switch (job.data.mode) {
        case 'ok':
          return job.data.n ?? job.id;
        case 'fail':
          throw new Error(`failing ${job.id}`);
        case 'failOnce':
          if (!state.failedOnce.has(job.id)) {
            state.failedOnce.add(job.id);
            throw new Error(`first run of ${job.id} fails`);
          }
          return 'second time lucky';
        case 'hold':
          await gateOf(job.id).promise;
          return 'held result';
        case 'abortable':
          // Ignores the abort on purpose: it returns a result later, which must not be saved.
          await gateOf(job.id).promise;
          return 'late result';
      }
    } finally {
      returnedOf(job.id).resolve();
    }
  }

  @OnJobEvent('cancelled') onCancelled(event: QueueEvent) {
    this.heard.push(event);
  }
}

/** For cancel-then-retry: each run waits on its own gate, ignores its signal, then reports progress and returns. */
const runs: { job: Job; gate: ReturnType<typeof deferred<void>>; progress?: string }[] = [];

@Processor('again', { concurrency: 2 })
class AgainProcessor implements QueueProcessor<unknown, string> {
  async process(job: Job): Promise<string> {
    const run: (typeof runs)[number] = { job, gate: deferred() };
    runs.push(run);
    await run.gate.promise;
    run.progress = await job.updateProgress(runs.indexOf(run)).then(
      () => 'stored',
      (error: unknown) => (error instanceof Error ? error.constructor.name : String(error)),
    );
    return `run ${runs.indexOf(run)}`;
  }
}

@Processor('canary')
class CanaryProcessor implements QueueProcessor<{ fail?: boolean }, string> {
  async process(job: Job<{ fail?: boolean }>): Promise<string> {
    if (job.data.fail) throw new Error('canary told to fail');
    return 'tweet';
  }
}

describeEachBackend('QueueAdmin: inspection and control', (backend) => {
  let app: TestingModule | undefined;
  let child: ChildApp | undefined;
  let subscription: Subscription | undefined;

  beforeEach(() => {
    state.ran = [];
    state.failedOnce.clear();
    state.gates.clear();
    state.started.clear();
    state.returned.clear();
    runs.length = 0;
  });
  afterEach(async () => {
    subscription?.unsubscribe();
    state.gates.forEach((gate) => gate.resolve());
    runs.forEach((run) => run.gate.resolve());
    await child?.kill();
    child = undefined;
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend, MIGRATED);

  async function startApp(
    options: SqliteQueueModuleOptions = {},
    processors = true,
  ): Promise<{ admin: QueueAdmin; producer: QueueProducer }> {
    app = await current.startApp({
      module: { pollInterval: 100, ...options },
      providers: processors ? [ControlledProcessor, CanaryProcessor, AgainProcessor] : [],
    });
    return { admin: app.get(QueueAdmin), producer: app.get(QueueProducer) };
  }

  const statusOf = async (admin: QueueAdmin, id: string) => (await admin.getJob(id))?.status;
  const until = (admin: QueueAdmin, id: string, status: string) =>
    waitFor(async () => (await statusOf(admin, id)) === status, `job ${id} ${status}`);

  /** Runs a canary job to completion: proof that claim rounds happened after everything before it was written. */
  async function canaryRound(admin: QueueAdmin, producer: QueueProducer, queue = 'canary'): Promise<void> {
    const job = await producer.add(queue, {});
    await until(admin, job.id, 'completed');
  }

  describe('inspection', () => {
    it('getJobs pages newest first and filters by status; getCounts and listQueues report every status, paused state and processors', async () => {
      const { admin, producer } = await startApp();
      const waiting = await producer.addBulk(
        'noproc',
        Array.from({ length: 5 }, (_, n) => ({ data: { n } })),
      );
      const ok = await producer.addBulk<CtlData>(
        'ctl',
        Array.from({ length: 3 }, (_, n) => ({ data: { mode: 'ok', n } })),
      );
      const failing = await producer.addBulk<CtlData>(
        'ctl',
        Array.from({ length: 2 }, () => ({ data: { mode: 'fail' }, options: { maxAttempts: 1 } })),
      );
      await waitFor(async () => {
        const counts = await admin.getCounts('ctl');
        return counts.completed === 3 && counts.failed === 2;
      }, 'ctl jobs finished');
      // A paused queue shows with no job: "quiet" is known by a job (pausing an unknown queue is refused), then empty.
      const once = await producer.add('quiet', {});
      await admin.pause('quiet');
      await admin.remove(once.id);

      const ids = (jobs: { id: string }[]) => jobs.map((job) => job.id);
      expect(ids(await admin.getJobs('noproc'))).toEqual(ids(waiting).reverse());
      expect(ids(await admin.getJobs('noproc', { limit: 2, offset: 1 }))).toEqual([waiting[3].id, waiting[2].id]);
      expect(ids(await admin.getJobs('noproc', { limit: 2, offset: 4 }))).toEqual([waiting[0].id]);
      expect(await admin.getJobs('noproc', { offset: 5 })).toEqual([]);
      expect(ids(await admin.getJobs('noproc', { status: 'pending' }))).toEqual(ids(waiting).reverse());
      expect(await admin.getJobs('noproc', { status: 'completed' })).toEqual([]);
      expect(ids(await admin.getJobs('ctl', { status: 'failed' }))).toEqual(ids(failing).reverse());
      expect(ids(await admin.getJobs('ctl', { status: 'completed' }))).toEqual(ids(ok).reverse());
      expect(ids(await admin.getJobs('ctl'))).toEqual([...ids(ok), ...ids(failing)].reverse());
      const [newestFailed] = await admin.getJobs('ctl', { status: 'failed', limit: 1 });
      expect(newestFailed).toMatchObject({
        queue: 'ctl',
        status: 'failed',
        attempts: 1,
        maxAttempts: 1,
        error: { message: `failing ${newestFailed.id}` },
      });

      expect(await admin.getCounts('ctl')).toEqual({ pending: 0, running: 0, completed: 3, failed: 2, cancelled: 0, claimed: 0 });
      expect(await admin.getCounts('noproc')).toEqual({ pending: 5, running: 0, completed: 0, failed: 0, cancelled: 0, claimed: 0 });
      expect(await admin.getCounts('nothing-here')).toEqual({ pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0, claimed: 0 });
      expect(await admin.getCounts()).toEqual({ pending: 5, running: 0, completed: 3, failed: 2, cancelled: 0, claimed: 0 });

      const none = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0, claimed: 0 };
      expect(await admin.listQueues()).toEqual([
        { name: 'again', counts: none, paused: false, hasProcessor: true, processed: true, concurrency: 2 },
        { name: 'canary', counts: none, paused: false, hasProcessor: true, processed: true, concurrency: 1 },
        { name: 'ctl', counts: { ...none, completed: 3, failed: 2 }, paused: false, hasProcessor: true, processed: true, concurrency: 2 },
        { name: 'noproc', counts: { ...none, pending: 5 }, paused: false, hasProcessor: false, processed: false, concurrency: null },
        { name: 'quiet', counts: none, paused: true, hasProcessor: false, processed: false, concurrency: null },
      ]);
      await admin.resume('quiet');
      expect((await admin.listQueues()).find((queue) => queue.name === 'quiet')).toBeUndefined();
    });
  });

  describe('pause and resume', () => {
    it('a paused queue claims nothing while other queues go on; its running job finishes; resume runs the rest', async () => {
      const { admin, producer } = await startApp();
      const held = await producer.add<CtlData>('ctl', { mode: 'hold' });
      await startedOf(held.id).promise;
      await admin.pause('ctl');
      const waiting = await producer.addBulk<CtlData>(
        'ctl',
        Array.from({ length: 3 }, (_, n) => ({ data: { mode: 'ok', n } })),
      );

      // ctl has a free slot (concurrency 2, one held): every canary claim round would have taken them.
      await canaryRound(admin, producer);
      await canaryRound(admin, producer);
      expect(await admin.getCounts('ctl')).toMatchObject({ pending: 3, running: 1 });
      expect((await admin.listQueues()).find((queue) => queue.name === 'ctl')).toMatchObject({ paused: true });

      gateOf(held.id).resolve();
      await until(admin, held.id, 'completed');
      await canaryRound(admin, producer);
      expect(await admin.getCounts('ctl')).toEqual({ pending: 3, running: 0, completed: 1, failed: 0, cancelled: 0, claimed: 0 });
      expect(state.ran).toEqual([held.id]);

      await admin.resume('ctl');
      expect((await admin.listQueues()).find((queue) => queue.name === 'ctl')).toMatchObject({ paused: false });
      await waitFor(async () => (await admin.getCounts('ctl')).completed === 4, 'paused jobs ran after resume');
      expect(state.ran.slice(1).sort()).toEqual(waiting.map((job) => job.id).sort());
    });

    it('a pause made in this process stops claims in another OS process; jobs stay pending; they run there after resume', async () => {
      const runLog = join(current.db.path, '..', 'run.log');
      child = startChildApp({
        connection: current.db.options,
        runLog,
        module: { pollInterval: 100 },
        queues: [
          { name: 'remote', concurrency: 4 },
          { name: 'remote-canary', concurrency: 1 },
        ],
      });
      await child.printed('READY');
      const { admin, producer } = await startApp({ processing: false }, false);
      // Events belong to the process where they happen: none of the child's reach this one.
      const heardHere: QueueEvent[] = [];
      subscription = app!.get(QueueEvents).events$.subscribe((event) => heardHere.push(event));

      // The child works before the pause.
      const before = await producer.add('remote', { n: -1 });
      await until(admin, before.id, 'completed');

      await admin.pause('remote');
      const paused = await producer.addBulk(
        'remote',
        Array.from({ length: 5 }, (_, n) => ({ data: { n } })),
      );
      // Each canary is claimed by a statement that also asked for 'remote' (it has free slots) after the 5 were written.
      for (let round = 0; round < 3; round++) await canaryRound(admin, producer, 'remote-canary');

      expect(await admin.getCounts('remote')).toEqual({ pending: 5, running: 0, completed: 1, failed: 0, cancelled: 0, claimed: 0 });
      const ranRemote = () => readRunLog(runLog).filter((entry) => entry.queue === 'remote');
      expect(ranRemote().map((entry) => entry.id)).toEqual([before.id]);
      expect((await admin.listQueues()).find((queue) => queue.name === 'remote')).toMatchObject({ paused: true, hasProcessor: false });

      await admin.resume('remote');
      await waitFor(async () => (await admin.getCounts('remote')).completed === 6, 'the child ran the paused jobs after resume');
      const ran = ranRemote().slice(1);
      expect(ran.map((entry) => entry.id).sort()).toEqual(paused.map((job) => job.id).sort());
      expect(new Set(ran.map((entry) => entry.pid))).toEqual(new Set([child.process.pid]));
      // Nothing ran here: this process only announced the jobs it added.
      expect(heardHere.filter((event) => event.type !== 'added')).toEqual([]);
    });
  });

  describe('cancel', () => {
    it('a cancelled pending job never runs, and cancelling it again is an InvalidJobStateError', async () => {
      const { admin, producer } = await startApp();
      await admin.pause('ctl');
      const doomed = await producer.add<CtlData>('ctl', { mode: 'ok' });
      const survivor = await producer.add<CtlData>('ctl', { mode: 'ok' });
      await admin.cancel(doomed.id);
      expect(await admin.getJob(doomed.id)).toMatchObject({ status: 'cancelled', attempts: 0 });
      expect((await admin.getJob(doomed.id))?.finishedAt).toBeInstanceOf(Date);

      await admin.resume('ctl');
      await until(admin, survivor.id, 'completed');
      await canaryRound(admin, producer);
      expect(state.ran).toEqual([survivor.id]);
      expect(await admin.getCounts('ctl')).toEqual({ pending: 0, running: 0, completed: 1, failed: 0, cancelled: 1, claimed: 0 });

      const again = await errorOf(() => admin.cancel(doomed.id));
      expect(again).toBeInstanceOf(InvalidJobStateError);
      expect(again).toMatchObject({ jobId: doomed.id, status: 'cancelled', operation: 'cancel' });
      const finished = await errorOf(() => admin.cancel(survivor.id));
      expect(finished).toMatchObject({ status: 'completed' });
      expect(finished).toBeInstanceOf(InvalidJobStateError);
    });

    it('cancelling a running job in this process aborts its signal at once with JobCancelledError; its later result is not saved', async () => {
      const { admin, producer } = await startApp();
      const events: QueueEvent[] = [];
      subscription = app!.get(QueueEvents).events$.subscribe((event) => events.push(event));
      const job = await producer.add<CtlData>('ctl', { mode: 'abortable' });
      const signal = await startedOf(job.id).promise;
      expect(signal.aborted).toBe(false);

      await admin.cancel(job.id);
      // Same process: aborted by the time cancel() resolves, no heartbeat needed.
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBeInstanceOf(JobCancelledError);
      expect((signal.reason as JobCancelledError).jobId).toBe(job.id);
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'cancelled' });

      // The handler ignores the abort and returns a result afterwards: it is thrown away.
      gateOf(job.id).resolve();
      await returnedOf(job.id).promise;
      await canaryRound(admin, producer);
      const info = await admin.getJob(job.id);
      expect(info).toMatchObject({ status: 'cancelled', result: null, attempts: 1 });
      expect(events.filter((event) => event.jobId === job.id && event.queue === 'ctl').map((event) => event.type)).toEqual([
        'added',
        'active',
        'cancelled',
      ]);
      expect(app!.get(ControlledProcessor).heard).toEqual([expect.objectContaining({ type: 'cancelled', jobId: job.id, attempt: 1 })]);

      // Its slots are free again: both run at once (concurrency 2).
      const next = await producer.addBulk<CtlData>('ctl', [{ data: { mode: 'hold' } }, { data: { mode: 'hold' } }]);
      await Promise.all(next.map((held) => startedOf(held.id).promise));
      next.forEach((held) => gateOf(held.id).resolve());
      await Promise.all(next.map((held) => until(admin, held.id, 'completed')));
    });

    it('cancelling a job running in another OS process aborts it there at its next heartbeat; it ends cancelled and its result is dropped', async () => {
      const runLog = join(current.db.path, '..', 'run.log');
      const doneLog = join(current.db.path, '..', 'done.log');
      const abortLog = join(current.db.path, '..', 'abort.log');
      child = startOpsApp({
        connection: current.db.options,
        runLog,
        doneLog,
        abortLog,
        module: { pollInterval: 100, leaseDuration: 6500 },
        queues: [{ name: 'remote' }, { name: 'remote-canary' }],
      });
      await child.printed('READY');
      const { admin, producer } = await startApp({ processing: false }, false);

      const job = await producer.add<OpsJobData>('remote', { progress: { phase: 'waiting' }, waitForAbort: true, result: 'late result' });
      // The handler's progress report, stored by the child, says it is running there.
      await waitFor(async () => (await admin.getJob(job.id))?.progress !== null, 'the child reported progress', 60_000);
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'running', progress: { phase: 'waiting' } });
      expect(readJsonLines(abortLog)).toEqual([]);

      await admin.cancel(job.id);
      expect(await statusOf(admin, job.id)).toBe('cancelled');
      await waitFor(() => readJsonLines(abortLog).length === 1, 'the child saw its signal abort');
      expect(readJsonLines<AbortRecord>(abortLog)).toEqual([
        { id: job.id, attempt: 1, aborted: true, reasonName: 'JobCancelledError', isJobCancelledError: true, pid: child.process.pid },
      ]);
      await waitFor(() => readLines(doneLog).length === 1, 'the handler returned its late result');
      await canaryRound(admin, producer, 'remote-canary');

      expect(await admin.getJob(job.id)).toMatchObject({ status: 'cancelled', result: null, attempts: 1, progress: { phase: 'waiting' } });
      expect(readRunLog(runLog).filter((entry) => entry.queue === 'remote')).toHaveLength(1);
    });
  });

  describe('retry, remove, clean', () => {
    it('a job cancelled while running and retried at once runs again cleanly, whatever its first handler still does', async () => {
      const { admin, producer } = await startApp();
      const job = await producer.add('again', {});
      await waitFor(() => runs.length === 1, 'first run started');
      await admin.cancel(job.id);
      expect(runs[0].job.signal.aborted).toBe(true);
      await admin.retry(job.id);
      // The first handler ignores its signal and is still running when the retry starts (concurrency 2).
      await waitFor(() => runs.length === 2, 'the retry started');
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'running' });

      // The cancelled run ends first: its progress and its result must not land on the new run.
      runs[0].gate.resolve();
      await waitFor(() => runs[0].progress !== undefined, 'first run reported');
      expect(runs[0].progress).toBe('JobNotRunningError');
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'running', progress: null, result: null });

      // The new run is still the running attempt: it can report progress, be cancelled, and complete.
      runs[1].gate.resolve();
      await until(admin, job.id, 'completed');
      expect(runs[1].progress).toBe('stored');
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', result: 'run 1', progress: 1 });
    });

    it('retry runs a failed or cancelled job again with a fresh set of attempts; retryAll retries every failed job of one queue', async () => {
      const { admin, producer } = await startApp();
      const failed = await producer.add<CtlData>('ctl', { mode: 'failOnce' }, { maxAttempts: 1 });
      await until(admin, failed.id, 'failed');
      await admin.retry(failed.id);
      await until(admin, failed.id, 'completed');
      expect(await admin.getJob(failed.id)).toMatchObject({
        attempts: 1,
        result: 'second time lucky',
        error: { message: `first run of ${failed.id} fails` },
      });

      await admin.pause('ctl');
      const cancelled = await producer.add<CtlData>('ctl', { mode: 'ok', n: 7 });
      await admin.cancel(cancelled.id);
      await admin.resume('ctl');
      await admin.retry(cancelled.id);
      await until(admin, cancelled.id, 'completed');
      expect(await admin.getJob(cancelled.id)).toMatchObject({ result: 7, attempts: 1 });

      // A cancelled job is retried by retry(id) only: retryAll leaves it cancelled.
      await admin.pause('ctl');
      const staysCancelled = await producer.add<CtlData>('ctl', { mode: 'ok', n: 8 });
      await admin.cancel(staysCancelled.id);
      await admin.resume('ctl');
      const many = await producer.addBulk<CtlData>(
        'ctl',
        Array.from({ length: 3 }, () => ({ data: { mode: 'failOnce' }, options: { maxAttempts: 1 } })),
      );
      const otherQueue = await producer.add('canary', { fail: true }, { maxAttempts: 1 });
      await Promise.all([...many.map((job) => until(admin, job.id, 'failed')), until(admin, otherQueue.id, 'failed')]);
      expect(await admin.retryAll('ctl')).toBe(3);
      await waitFor(async () => (await admin.getCounts('ctl')).completed === 5, 'the three retried jobs completed');
      expect(await statusOf(admin, staysCancelled.id)).toBe('cancelled');
      await canaryRound(admin, producer);
      expect(await statusOf(admin, otherQueue.id)).toBe('failed');
      expect(await admin.retryAll('ctl')).toBe(0);
    });

    it('remove deletes a job that is not running and refuses a running one', async () => {
      const { admin, producer } = await startApp();
      const done = await producer.add<CtlData>('ctl', { mode: 'ok' });
      await until(admin, done.id, 'completed');
      await admin.remove(done.id);
      expect(await admin.getJob(done.id)).toBeNull();

      await admin.pause('ctl');
      const pending = await producer.add<CtlData>('ctl', { mode: 'ok' });
      await admin.remove(pending.id);
      expect(await admin.getJob(pending.id)).toBeNull();
      await admin.resume('ctl');

      const running = await producer.add<CtlData>('ctl', { mode: 'hold' });
      await startedOf(running.id).promise;
      const refused = await errorOf(() => admin.remove(running.id));
      expect(refused).toBeInstanceOf(InvalidJobStateError);
      expect(refused).toMatchObject({ jobId: running.id, status: 'running', operation: 'remove' });
      expect(await statusOf(admin, running.id)).toBe('running');
      gateOf(running.id).resolve();
      await until(admin, running.id, 'completed');
      await admin.remove(running.id);
      await canaryRound(admin, producer);
      expect(state.ran).toEqual([done.id, running.id]);
      expect(await admin.getCounts('ctl')).toEqual({ pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0, claimed: 0 });
    });

    it('never reuses the id of a deleted job: an id held by a client cannot come to name another job', async () => {
      const { admin, producer } = await startApp();
      const seen = new Set<string>();
      for (let round = 0; round < 3; round++) {
        // The newest job of the table is deleted each time (remove(), then clean()), as retention does too.
        const job = await producer.add<CtlData>('ctl', { mode: 'ok' });
        expect(seen.has(job.id)).toBe(false);
        seen.add(job.id);
        await until(admin, job.id, 'completed');
        if (round === 0) await admin.remove(job.id);
        else expect(await admin.clean('ctl', { status: 'completed' })).toBe(1);
      }
      // A stale id names nothing rather than a newer job.
      for (const id of seen) {
        expect(await admin.getJob(id)).toBeNull();
        expect(await errorOf(() => admin.cancel(id))).toBeInstanceOf(JobNotFoundError);
      }
      const latest = await producer.add<CtlData>('ctl', { mode: 'ok' });
      expect(seen.has(latest.id)).toBe(false);
    });

    it('clean deletes one queue’s jobs of the given statuses older than olderThan, and nothing else', async () => {
      const { admin, producer } = await startApp();
      await producer.addBulk<CtlData>(
        'ctl',
        Array.from({ length: 3 }, (_, n) => ({ data: { mode: 'ok', n } })),
      );
      await producer.addBulk<CtlData>(
        'ctl',
        Array.from({ length: 2 }, () => ({ data: { mode: 'fail' }, options: { maxAttempts: 1 } })),
      );
      await producer.add('canary', {});
      await producer.addBulk('noproc', [{ data: 1 }, { data: 2 }]);
      await waitFor(async () => {
        const [ctl, canary] = await Promise.all([admin.getCounts('ctl'), admin.getCounts('canary')]);
        return ctl.completed === 3 && ctl.failed === 2 && canary.completed === 1;
      }, 'jobs finished');

      expect(await admin.clean('ctl', { status: ['completed', 'failed'], olderThan: 3_600_000 })).toBe(0);
      expect(await admin.clean('ctl', { status: 'completed' })).toBe(3);
      expect(await admin.getCounts('ctl')).toEqual({ pending: 0, running: 0, completed: 0, failed: 2, cancelled: 0, claimed: 0 });
      expect(await admin.clean('ctl', { status: ['failed', 'cancelled'], olderThan: 0 })).toBe(2);
      expect(await admin.clean('noproc', { status: 'pending' })).toBe(2);
      expect(await admin.getCounts()).toEqual({ pending: 0, running: 0, completed: 1, failed: 0, cancelled: 0, claimed: 0 });
    });
  });
});
