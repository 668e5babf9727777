/**
 * Timeouts: an attempt that outlives its `timeout` fails with JobTimeoutError and its signal is aborted,
 * even when the handler ignores the signal and never settles; its slot is freed and the queue goes on.
 */
import { InvalidProcessorError, Job, JobTimeoutError, Processor, QueueAdmin, QueueProcessor, QueueProducer } from '../lib';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface SlowData {
  /** Never settle and ignore the signal. */
  hang?: boolean;
  /** Hang only on the first attempt. */
  hangOnce?: boolean;
  /** Wait until the test opens this gate. */
  gate?: string;
  /** Take this long (ignoring the signal). */
  sleep?: number;
}

const signals = new Map<string, AbortSignal>();
const gates = new Map<string, { promise: Promise<void>; resolve: () => void }>();
let hangActive = false;
let active = 0;
let maxActive = 0;
const quickStarts: { id: string; duringHang: boolean }[] = [];

async function handle(job: Job<SlowData>): Promise<string> {
  signals.set(`${job.id}#${job.attempt}`, job.signal);
  if (job.data.hang || (job.data.hangOnce && job.attempt === 1)) {
    hangActive = true;
    job.signal.addEventListener('abort', () => (hangActive = false));
    return new Promise<string>(() => undefined);
  }
  quickStarts.push({ id: job.id, duringHang: hangActive });
  active++;
  maxActive = Math.max(maxActive, active);
  try {
    if (job.data.gate) await gates.get(job.data.gate)!.promise;
    if (job.data.sleep) await new Promise((resolve) => setTimeout(resolve, job.data.sleep));
    return `ok ${job.attempt}`;
  } finally {
    active--;
  }
}

@Processor('slow', { concurrency: 2 })
class SlowProcessor implements QueueProcessor<SlowData, string> {
  process(job: Job<SlowData>): Promise<string> {
    return handle(job);
  }
}

@Processor('limited', { timeout: 300 })
class LimitedProcessor implements QueueProcessor<SlowData, string> {
  process(job: Job<SlowData>): Promise<string> {
    return handle(job);
  }
}

describeEachBackend('timeouts', (backend) => {
  let producer: QueueProducer;
  let admin: QueueAdmin;
  // Before the app closes (perTestApp's afterEach runs next): a held handler would hold up shutdown.
  afterEach(() => gates.forEach((gate) => gate.resolve()));
  const current = perTestApp(backend, MIGRATED);

  beforeEach(async () => {
    signals.clear();
    gates.clear();
    hangActive = false;
    active = 0;
    maxActive = 0;
    quickStarts.length = 0;
    const app = await current.startApp({
      module: { pollInterval: 50, shutdownTimeout: 500 },
      providers: [SlowProcessor, LimitedProcessor],
    });
    producer = app.get(QueueProducer);
    admin = app.get(QueueAdmin);
  });

  const statusOf = async (id: string) => (await admin.getJob(id))?.status;

  it('fails a hanging handler that ignores its signal after `timeout`, aborts the signal, and keeps the other slot busy meanwhile', async () => {
    const hung = await producer.add<SlowData>('slow', { hang: true }, { timeout: 1500, maxAttempts: 1 });
    await waitFor(() => signals.has(`${hung.id}#1`), 'the hanging job started');
    const quick = await producer.addBulk<SlowData>(
      'slow',
      Array.from({ length: 50 }, () => ({ data: {} })),
    );
    await waitFor(async () => (await admin.getCounts('slow')).completed === 50, 'the 50 quick jobs completed');
    await waitFor(async () => (await statusOf(hung.id)) === 'failed', 'the hanging job failed');

    const info = (await admin.getJob(hung.id))!;
    expect(info).toMatchObject({ status: 'failed', attempts: 1, lockedBy: null, leaseUntil: null });
    expect(info.error).toMatchObject({ name: 'JobTimeoutError', message: `Job ${hung.id} timed out after 1500 ms`, attempt: 1 });
    expect(info.finishedAt!.getTime() - info.startedAt!.getTime()).toBeGreaterThanOrEqual(1500);
    const signal = signals.get(`${hung.id}#1`)!;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(JobTimeoutError);
    // The other slot kept working while one was held by the hanging job, and concurrency was respected.
    expect(quickStarts.filter((start) => start.duringHang).length).toBeGreaterThan(0);
    expect(maxActive).toBeLessThanOrEqual(2);
    for (const job of quick) expect(await statusOf(job.id)).toBe('completed');

    // The timed-out slot is free again: two jobs now run at the same time (the handler is still pending).
    gates.set('pair', deferred<void>());
    const pair = await producer.addBulk<SlowData>('slow', [{ data: { gate: 'pair' } }, { data: { gate: 'pair' } }]);
    await waitFor(() => active === 2, 'both slots run a job at once after the timeout');
    gates.get('pair')!.resolve();
    await waitFor(
      async () => (await statusOf(pair[0].id)) === 'completed' && (await statusOf(pair[1].id)) === 'completed',
      'the pair completed',
    );
    expect(await admin.getCounts('slow')).toMatchObject({ pending: 0, running: 0, completed: 52, failed: 1 });
  });

  it("applies the processor's timeout to jobs that set none, and a job's own timeout over it", async () => {
    const hung = await producer.add<SlowData>('limited', { hang: true }, { maxAttempts: 1 });
    const patient = await producer.add<SlowData>('limited', { sleep: 600 }, { timeout: 20_000, maxAttempts: 1 });
    await waitFor(async () => (await statusOf(hung.id)) === 'failed', 'the hanging job failed on the processor timeout');
    expect((await admin.getJob(hung.id))!.error).toMatchObject({
      name: 'JobTimeoutError',
      message: `Job ${hung.id} timed out after 300 ms`,
    });
    expect(signals.get(`${hung.id}#1`)!.aborted).toBe(true);
    await waitFor(async () => (await statusOf(patient.id)) === 'completed', 'the job with its own longer timeout completed');
    expect(signals.get(`${patient.id}#1`)!.aborted).toBe(false);
  });

  it('a timed-out attempt is retried while attempts remain', async () => {
    const job = await producer.add<SlowData>(
      'slow',
      { hangOnce: true },
      { timeout: 300, maxAttempts: 2, backoff: { type: 'fixed', delay: 0 } },
    );
    await waitFor(async () => (await statusOf(job.id)) === 'completed', 'the second attempt completed');
    expect(await admin.getJob(job.id)).toMatchObject({
      status: 'completed',
      attempts: 2,
      result: 'ok 2',
      error: { name: 'JobTimeoutError', attempt: 1 },
    });
    expect(signals.get(`${job.id}#1`)!.aborted).toBe(true);
    expect(signals.get(`${job.id}#2`)!.aborted).toBe(false);
  });

  it('refuses a processor timeout that no timer can wait (over 2^31 - 1 ms would fire after 1 ms)', async () => {
    @Processor('too-patient', { timeout: 2 ** 31 })
    class TooPatientProcessor implements QueueProcessor<SlowData, string> {
      process(job: Job<SlowData>): Promise<string> {
        return handle(job);
      }
    }
    // On a database of its own; closed after the test (close() rethrows the failed init, see closeApp).
    const module = await current.compileApp({ providers: [TooPatientProcessor] }, current.otherDatabase());
    const error = await module.init().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InvalidProcessorError);
    expect((error as Error).message).toMatch(/timeout must be a positive number of ms, at most 2147483647/);
  });
});
