import { Logger } from '@nestjs/common';
import { AttemptRef, Completion, QueueStorage } from '../lib/storage/queue-storage.interface';
import { SavableOutcome } from '../lib/worker/outcome';
import { MAX_SAVE_RETRY_DELAY_MS, OutcomeSave, OutcomeWriter, OutcomeWriterTiming } from '../lib/worker/outcome-writer';

const NOW = 1_700_000_000_000;
const permanent = () => Object.assign(new Error('invalid input syntax for type bigint: "1e+300"'), { code: '22P02' });
const busy = () => Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });
const complete = (json: string | null = null): SavableOutcome => ({ kind: 'complete', json });
const retry: SavableOutcome = { kind: 'retry', error: { name: 'Error', message: 'boom', attempt: 1 }, runAt: NOW + 10 };
const fail: SavableOutcome = { kind: 'fail', error: { name: 'Error', message: 'boom', attempt: 3 } };

/** Keeps what the writer logs. */
class CapturingLogger extends Logger {
  readonly lines: string[] = [];
  override error(message: unknown): void {
    this.lines.push(`error ${String(message)}`);
  }
  override warn(message: unknown): void {
    this.lines.push(`warn ${String(message)}`);
  }
}

/** An injected clock and pause: pauses are recorded and end at once (or reject once the signal aborted). */
function fakeTiming(): OutcomeWriterTiming & { pauses: number[] } {
  const pauses: number[] = [];
  return {
    pauses,
    now: () => NOW,
    sleep: async (ms, signal) => {
      pauses.push(ms);
      if (signal.aborted) throw signal.reason;
    },
  };
}

/** Every statement the stand-in storage received, in the order they were handed to it. */
type Statement =
  | { kind: 'completeMany'; completions: Completion[]; workerId: string; now: number }
  | { kind: 'retry'; ref: AttemptRef; workerId: string; runAt: number; now: number }
  | { kind: 'fail'; ref: AttemptRef; workerId: string; error: string; now: number };

/** A storage whose statements own every attempt unless `lost` names it, and land when the test says (or at once). */
function standInStorage(options: { lost?: string[]; hold?: boolean } = {}) {
  const statements: Statement[] = [];
  const held: (() => void)[] = [];
  const lost = new Set(options.lost ?? []);
  const land = <T>(value: T): Promise<T> =>
    options.hold ? new Promise<T>((resolve) => held.push(() => resolve(value))) : Promise.resolve(value);
  const storage = {
    completeMany: jest.fn(async (completions: Completion[], workerId: string, now: number) => {
      statements.push({ kind: 'completeMany', completions, workerId, now });
      return land(new Set(completions.map(({ ref }) => ref.id).filter((id) => !lost.has(id))));
    }),
    retry: jest.fn(async (ref: AttemptRef, workerId: string, _error: string, runAt: number, now: number) => {
      statements.push({ kind: 'retry', ref, workerId, runAt, now });
      return land(!lost.has(ref.id));
    }),
    fail: jest.fn(async (ref: AttemptRef, workerId: string, error: string, now: number) => {
      statements.push({ kind: 'fail', ref, workerId, error, now });
      return land(!lost.has(ref.id));
    }),
  };
  return { storage, full: storage as unknown as QueueStorage, statements, landAll: () => held.splice(0).forEach((go) => go()) };
}

function request(id: string, outcome: SavableOutcome, extra: Partial<OutcomeSave> = {}): OutcomeSave {
  return {
    ref: { id, attempt: 1 },
    queue: 'q',
    outcome,
    logger: new CapturingLogger('test'),
    signal: new AbortController().signal,
    onQueued: () => undefined,
    ...extra,
  };
}

describe('OutcomeWriter (unit): outcomes of one turn go out together, fenced by worker id and attempt', () => {
  it('writes completions of the same turn in one statement, retries and failures beside them, all fenced', async () => {
    const { full, statements } = standInStorage();
    const writer = new OutcomeWriter(full, 'worker-a', 500, fakeTiming());
    const saved = await Promise.all([
      writer.save(request('1', complete('{"a":1}'))),
      writer.save(request('2', retry)),
      writer.save(request('3', complete())),
      writer.save(request('4', fail)),
    ]);
    expect(saved).toEqual([complete('{"a":1}'), retry, complete(), fail]);
    expect(statements).toEqual([
      { kind: 'retry', ref: { id: '2', attempt: 1 }, workerId: 'worker-a', runAt: NOW + 10, now: NOW },
      { kind: 'fail', ref: { id: '4', attempt: 1 }, workerId: 'worker-a', error: expect.stringContaining('"boom"'), now: NOW },
      {
        kind: 'completeMany',
        completions: [
          { ref: { id: '1', attempt: 1 }, result: '{"a":1}' },
          { ref: { id: '3', attempt: 1 }, result: null },
        ],
        workerId: 'worker-a',
        now: NOW,
      },
    ]);
  });

  it('runs onQueued when the statement is handed to the storage, before it lands; later outcomes form the next batch', async () => {
    const { full, statements, landAll } = standInStorage({ hold: true });
    const writer = new OutcomeWriter(full, 'w', 500, fakeTiming());
    const queued: string[] = [];
    const landed: string[] = [];
    const track = (id: string, outcome: SavableOutcome) =>
      writer.save(request(id, outcome, { onQueued: () => queued.push(id) })).then(() => landed.push(id));
    const first = [track('1', complete()), track('2', retry)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(queued).toEqual(['2', '1']);
    expect(landed).toEqual([]);
    // Arrives while the first batch is in flight: waits for it, then goes out as one statement with its peers.
    const second = [track('3', complete()), track('4', complete())];
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toHaveLength(2);
    landAll();
    await Promise.all(first);
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements.map((statement) => statement.kind)).toEqual(['retry', 'completeMany', 'completeMany']);
    landAll();
    await Promise.all(second);
    expect(queued).toEqual(['2', '1', '3', '4']);
  });

  it('splits a turn larger than maxBatch into statements of at most maxBatch', async () => {
    const { full, statements } = standInStorage();
    const writer = new OutcomeWriter(full, 'w', 2, fakeTiming());
    await Promise.all(['1', '2', '3', '4', '5'].map((id) => writer.save(request(id, complete()))));
    expect(statements.map((statement) => (statement.kind === 'completeMany' ? statement.completions.length : 0))).toEqual([2, 2, 1]);
  });

  it('an outcome of an attempt that is no longer ours took no effect: null, and a warning, for every kind', async () => {
    const { full } = standInStorage({ lost: ['1', '2', '3'] });
    const writer = new OutcomeWriter(full, 'w', 500, fakeTiming());
    const logger = new CapturingLogger('test');
    const saved = await Promise.all([
      writer.save(request('1', complete(), { logger })),
      writer.save(request('2', retry, { logger })),
      writer.save(request('3', fail, { logger })),
      writer.save(request('4', complete(), { logger })),
    ]);
    expect(saved).toEqual([null, null, null, complete()]);
    expect(logger.lines.filter((line) => line.includes('no longer owned'))).toHaveLength(3);
  });
});

describe('OutcomeWriter (unit): only errors a retry can get past are retried', () => {
  it('retries a busy database with a bounded, doubling pause until the write lands', async () => {
    const { storage, full } = standInStorage();
    let calls = 0;
    storage.retry.mockImplementation(async () => (++calls <= 8 ? Promise.reject(busy()) : true));
    const timing = fakeTiming();
    const logger = new CapturingLogger('test');
    const writer = new OutcomeWriter(full, 'w', 500, timing);
    expect(await writer.save(request('1', retry, { logger }))).toEqual(retry);
    expect(storage.retry).toHaveBeenCalledTimes(9);
    expect(timing.pauses).toEqual([25, 50, 100, 200, 400, 800, MAX_SAVE_RETRY_DELAY_MS, MAX_SAVE_RETRY_DELAY_MS]);
    expect(logger.lines.filter((line) => line.includes('saving outcome retry failed, retrying'))).toHaveLength(8);
  });

  it('stops retrying at forced shutdown: null, nothing written', async () => {
    const { storage, full } = standInStorage();
    storage.completeMany.mockImplementation(async () => Promise.reject(busy()));
    const shutdown = new AbortController();
    const timing = fakeTiming();
    timing.sleep = async (ms, signal) => {
      timing.pauses.push(ms);
      shutdown.abort(new Error('shutdown'));
      if (signal.aborted) throw signal.reason;
    };
    const writer = new OutcomeWriter(full, 'w', 500, timing);
    expect(await writer.save(request('1', complete(), { signal: shutdown.signal }))).toBeNull();
    expect(storage.completeMany).toHaveBeenCalledTimes(1);
    expect(storage.fail).not.toHaveBeenCalled();
  });

  it('escalates an outcome the database refuses for good: the attempt is failed with OutcomeWriteError, logged once', async () => {
    const { storage, full } = standInStorage();
    storage.retry.mockImplementation(async () => Promise.reject(permanent()));
    const logger = new CapturingLogger('test');
    const timing = fakeTiming();
    const writer = new OutcomeWriter(full, 'w', 500, timing);
    const saved = await writer.save(request('1', retry, { logger }));
    expect(saved).toMatchObject({ kind: 'fail', writeFailed: true, error: { name: 'OutcomeWriteError', attempt: 1 } });
    expect(storage.fail).toHaveBeenCalledTimes(1);
    const stored = JSON.parse(storage.fail.mock.calls[0][2]) as { name: string; message: string };
    expect(stored.name).toBe('OutcomeWriteError');
    expect(stored.message).toContain('Saving the outcome (retry) of job 1 (queue "q") failed: invalid input syntax');
    expect(logger.lines.filter((line) => line.includes('refused'))).toHaveLength(1);
    expect(timing.pauses).toEqual([]);
  });

  it('gives up when even that failure is refused: null, so the lease expires and recovery takes the job', async () => {
    const { storage, full } = standInStorage();
    storage.completeMany.mockImplementation(async () => Promise.reject(permanent()));
    storage.fail.mockImplementation(async () => Promise.reject(permanent()));
    const logger = new CapturingLogger('test');
    const writer = new OutcomeWriter(full, 'w', 500, fakeTiming());
    expect(await writer.save(request('1', complete('{}'), { logger }))).toBeNull();
    expect(storage.completeMany).toHaveBeenCalledTimes(1);
    expect(storage.fail).toHaveBeenCalledTimes(1);
    expect(logger.lines.filter((line) => line.includes('giving up'))).toHaveLength(1);
  });

  it('writes a completion batch one by one after an error a retry cannot fix, so only the bad completion fails', async () => {
    const { storage, full } = standInStorage();
    storage.completeMany.mockImplementation(async (completions: Completion[]) => {
      if (completions.some((completion) => completion.result === 'bad')) throw permanent();
      return new Set(completions.map((completion) => completion.ref.id));
    });
    const writer = new OutcomeWriter(full, 'w', 500, fakeTiming());
    const outcomes = await Promise.allSettled([
      writer.write({ id: '1', attempt: 1 }, complete('1'), () => undefined),
      writer.write({ id: '2', attempt: 1 }, complete('bad'), () => undefined),
      writer.write({ id: '3', attempt: 1 }, complete('3'), () => undefined),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(storage.completeMany).toHaveBeenCalledTimes(4);
  });

  it('fails the whole completion batch on a busy database, without writing it one by one', async () => {
    const { storage, full } = standInStorage();
    storage.completeMany.mockImplementation(async () => Promise.reject(busy()));
    const writer = new OutcomeWriter(full, 'w', 500, fakeTiming());
    const outcomes = await Promise.allSettled([
      writer.write({ id: '1', attempt: 1 }, complete(), () => undefined),
      writer.write({ id: '2', attempt: 1 }, complete(), () => undefined),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(storage.completeMany).toHaveBeenCalledTimes(1);
  });

  it('tells a save that fails for now after forced shutdown began once, with null, and tries no more', async () => {
    const { storage, full } = standInStorage();
    storage.completeMany.mockImplementation(async () => Promise.reject(busy()));
    const shutdown = new AbortController();
    shutdown.abort(new Error('shutdown'));
    const timing = fakeTiming();
    const writer = new OutcomeWriter(full, 'w', 500, timing);
    const told: (SavableOutcome | null)[] = [];
    let answered!: () => void;
    const first = new Promise<void>((resolve) => (answered = resolve));
    writer.submit({
      ...request('1', complete(), { signal: shutdown.signal }),
      saved: (outcome) => {
        told.push(outcome);
        answered();
      },
    });
    await first;
    // A second answer would come from a retry's pause, which ends (rejected) within a few turns: let them pass.
    for (let turn = 0; turn < 5; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(told).toEqual([null]);
    expect(timing.pauses).toEqual([]);
    expect(storage.completeMany).toHaveBeenCalledTimes(1);
  });

  it("escalates a handler's failure the database refuses, as any other outcome: written again as OutcomeWriteError", async () => {
    const { storage, full } = standInStorage();
    let tries = 0;
    storage.fail.mockImplementation(async () => (++tries === 1 ? Promise.reject(permanent()) : true));
    const writer = new OutcomeWriter(full, 'w', 500, fakeTiming());
    const saved = await writer.save(request('1', fail));
    expect(saved).toMatchObject({ kind: 'fail', writeFailed: true, error: { name: 'OutcomeWriteError', attempt: 1 } });
    expect(storage.fail).toHaveBeenCalledTimes(2);
    expect((JSON.parse(storage.fail.mock.calls[1][2]) as { name: string }).name).toBe('OutcomeWriteError');
  });

  it('writes a refused batch of two one by one, and reads each answer: an attempt no longer ours is not taken as completed', async () => {
    const { storage, full } = standInStorage();
    storage.completeMany.mockImplementation(async (completions: Completion[]) => {
      if (completions.some((completion) => completion.result === 'bad')) throw permanent();
      // Job 3's attempt is no longer ours: its completion changes nothing.
      return new Set(completions.map((completion) => completion.ref.id).filter((id) => id !== '3'));
    });
    const writer = new OutcomeWriter(full, 'w', 500, fakeTiming());
    const pair = await Promise.allSettled([
      writer.write({ id: '1', attempt: 1 }, complete('1'), () => undefined),
      writer.write({ id: '2', attempt: 1 }, complete('bad'), () => undefined),
    ]);
    expect(pair.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
    expect(storage.completeMany).toHaveBeenCalledTimes(3);
    const withLost = await Promise.allSettled([
      writer.write({ id: '3', attempt: 1 }, complete('3'), () => undefined),
      writer.write({ id: '4', attempt: 1 }, complete('bad'), () => undefined),
    ]);
    expect(withLost[0]).toEqual({ status: 'fulfilled', value: false });
  });

  it('retries an unbatched write (snooze, rate-limit pause) past busy errors with the same backoff, and rethrows any other', async () => {
    const { full } = standInStorage();
    const timing = fakeTiming();
    const writer = new OutcomeWriter(full, 'w', 500, timing);
    const logger = new CapturingLogger('test');
    const unbatched = { ref: { id: '1', attempt: 1 }, queue: 'q', kind: 'snooze', logger, signal: new AbortController().signal };
    let tries = 0;
    const landed = await writer.retrying(unbatched, async () => {
      if (++tries < 4) throw busy();
      return 'snoozed';
    });
    expect(landed).toBe('snoozed');
    expect(timing.pauses).toEqual([25, 50, 100]);
    expect(logger.lines).toHaveLength(3);
    expect(logger.lines[0]).toMatch(/^error Job 1 \(queue q\) attempt 1: saving outcome snooze failed, retrying: .*SQLITE_BUSY/);

    let refused = 0;
    await expect(writer.retrying({ ...unbatched, kind: 'rateLimit' }, () => (refused++, Promise.reject(permanent())))).rejects.toThrow(
      /bigint/,
    );
    expect(refused).toBe(1);

    const stopped = new AbortController();
    stopped.abort();
    await expect(writer.retrying({ ...unbatched, signal: stopped.signal }, () => Promise.reject(busy()))).rejects.toThrow(/SQLITE_BUSY/);
  });
});
