/**
 * The helper every background loop runs on, on fake timers: period, no overlap, stop awaiting the run in
 * progress, failure streak with a bounded back-off, run-now and run-at triggers.
 */
import { MAX_OUTAGE_BACKOFF_MS } from '../lib/utils/failure-streak';
import { PeriodicTask } from '../lib/utils/periodic-task';

function silentLogger() {
  return { error: jest.fn(), log: jest.fn() };
}

/** A run the test finishes by hand, to hold it in flight. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('runs once per period, and at once only with runOnStart', async () => {
    const run = jest.fn(async () => undefined);
    const task = new PeriodicTask(run, { what: 'T', period: 100, logger: silentLogger() });
    task.start();
    task.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(350);
    expect(run).toHaveBeenCalledTimes(3);
    await task.stop();

    const eager = jest.fn(async () => undefined);
    const first = new PeriodicTask(eager, { what: 'T', period: 100, logger: silentLogger(), runOnStart: true });
    first.start();
    expect(eager).toHaveBeenCalledTimes(1);
    await first.stop();
  });

  it('never overlaps itself, and stop() waits for the run in progress', async () => {
    const held = deferred();
    let active = 0;
    let most = 0;
    const run = jest.fn(async () => {
      active++;
      most = Math.max(most, active);
      await held.promise;
      active--;
    });
    const task = new PeriodicTask(run, { what: 'T', period: 10, logger: silentLogger() });
    task.start();
    await jest.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(1);
    expect(most).toBe(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    held.resolve();
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(1);
    await task.stop();
  });

  it('runNow during a run runs once more right after it; nothing runs after stop', async () => {
    let held = deferred();
    const run = jest.fn(() => held.promise);
    const task = new PeriodicTask(run, { what: 'T', period: 60_000, logger: silentLogger() });
    task.start();
    task.runNow();
    expect(run).toHaveBeenCalledTimes(1);
    task.runNow();
    task.runNow();
    const first = held;
    held = deferred();
    first.resolve();
    await jest.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(2);
    held.resolve();
    await task.stop();
    task.runNow();
    task.start();
    await jest.advanceTimersByTimeAsync(120_000);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('runAt runs at that time, even when the timer fires before Date.now() gets there', async () => {
    const ranAt: number[] = [];
    let lag = 0;
    const task = new PeriodicTask(async () => void ranAt.push(Date.now() - lag), {
      what: 'T',
      period: 60_000,
      logger: silentLogger(),
      now: () => Date.now() - lag,
    });
    task.start();
    const at = Date.now() + 50;
    task.runAt(at);
    task.runAt(at + 10);
    lag = 1;
    await jest.advanceTimersByTimeAsync(60);
    expect(ranAt).toEqual([at]);
    await task.stop();
  });

  it('logs the first failure only, backs off in doubling steps up to max(period, 5 s), and logs the recovery', async () => {
    const logger = silentLogger();
    let failing = true;
    const tries: number[] = [];
    const task = new PeriodicTask(
      async () => {
        tries.push(Date.now());
        if (failing) throw new Error('database is down');
      },
      { what: 'Doing it', period: 100, logger },
    );
    task.start();
    await jest.advanceTimersByTimeAsync(20_000);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0][0]).toMatch(/^Doing it failed.*database is down/);
    const gaps = tries.slice(1).map((at, i) => at - tries[i]);
    // The try after a first failure comes on the next period; then the extra pause doubles: +200, +400, +800 ms.
    expect(gaps.slice(0, 5)).toEqual([100, 100, 300, 700, 1500]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(MAX_OUTAGE_BACKOFF_MS + 100);
    expect(gaps.slice(-2).every((gap) => gap >= MAX_OUTAGE_BACKOFF_MS)).toBe(true);
    failing = false;
    await jest.advanceTimersByTimeAsync(MAX_OUTAGE_BACKOFF_MS + 100);
    expect(logger.log).toHaveBeenCalledTimes(1);
    expect(logger.log.mock.calls[0][0]).toMatch(/^Doing it works again/);
    // The back-off is reset: one period per run again.
    const before = tries.length;
    await jest.advanceTimersByTimeAsync(1000);
    expect(tries.length - before).toBe(10);
    // A new outage is a new streak: logged again, and its second try comes one period later, not after the old pause.
    failing = true;
    const outageAt = tries.length;
    await jest.advanceTimersByTimeAsync(200);
    expect(logger.error).toHaveBeenCalledTimes(2);
    expect(tries.length - outageAt).toBe(2);
    await task.stop();
  });

  it('a task that does not back off keeps its period while failing, and runNow respects a back-off', async () => {
    const run = jest.fn(async () => {
      throw new Error('down');
    });
    const steady = new PeriodicTask(run, { what: 'Beat', period: 100, logger: silentLogger(), backsOff: false });
    steady.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(10);
    await steady.stop();

    const backing = jest.fn(async () => {
      throw new Error('down');
    });
    const task = new PeriodicTask(backing, { what: 'T', period: 100, logger: silentLogger() });
    task.start();
    await jest.advanceTimersByTimeAsync(200);
    expect(backing).toHaveBeenCalledTimes(2);
    task.runNow();
    await jest.advanceTimersByTimeAsync(0);
    expect(backing).toHaveBeenCalledTimes(2);
    await task.stop();
  });

  it('a run that tried nothing (returns false) neither ends nor extends a failure streak', async () => {
    const logger = silentLogger();
    const results: Array<'fail' | 'idle' | 'ok'> = ['fail', 'idle', 'idle', 'ok'];
    const task = new PeriodicTask(
      async () => {
        const next = results.shift() ?? 'ok';
        if (next === 'fail') throw new Error('down');
        return next === 'ok';
      },
      { what: 'T', period: 100, logger, backsOff: false },
    );
    task.start();
    await jest.advanceTimersByTimeAsync(300);
    expect(logger.log).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(100);
    expect(logger.log).toHaveBeenCalledTimes(1);
    expect(logger.log.mock.calls[0][0]).toMatch(/after 1 failed tries/);
    await task.stop();
  });
});
