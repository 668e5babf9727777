import { Logger } from '@nestjs/common';
import { Subject } from 'rxjs';
import { GroupRateLimitError } from '../lib/errors/group-rate-limit.error';
import { RateLimitError } from '../lib/errors/rate-limit.error';
import { UnrecoverableError } from '../lib/errors/unrecoverable.error';
import { JobEventBus } from '../lib/events/job-event-bus';
import { QueueEvent } from '../lib/interfaces/queue-event.interface';
import { AttemptRef, JobRecord, QueueStorage } from '../lib/storage/queue-storage.interface';
import { OutcomeWriter } from '../lib/worker/outcome-writer';
import { lookaheadFor } from '../lib/utils/lookahead.util';
import { QueueWorker } from '../lib/worker/queue-worker';
import { runningRecord } from './support/job-record';
import { waitFor } from './support/wait-for';

/** A completion write the test lands (or fails) by hand. */
interface HeldWrite {
  ref: AttemptRef;
  land(owned?: boolean): void;
}

function record(id: string): JobRecord {
  return runningRecord({ id });
}

/** How long a unit test waits for its worker to go idle: its handlers end at once, so this is never the wait itself. */
const IDLE_DEADLINE_MS = 2000;

/**
 * The worker's `whenIdle`, within a deadline: an attempt that never ends (a slot never released) fails the test here
 * at once, instead of leaving every test of the file to run into jest's own timeout.
 */
async function untilIdle(worker: QueueWorker): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the worker did not go idle within ${IDLE_DEADLINE_MS} ms: an attempt never ended`)),
      IDLE_DEADLINE_MS,
    );
  });
  try {
    await Promise.race([worker.whenIdle(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One worker of concurrency 1 over the real outcome writer and a stand-in storage: each completion statement is
 * "queued" when the writer hands it over, and written only when the test lands it. That is the order a connection
 * pool allows, where a claim can come back before the write it queued behind.
 */
function setUp(prefetch: number | 'auto' = 0) {
  const writes: HeldWrite[] = [];
  const storage = {
    completeMany(completions: { ref: AttemptRef }[]): Promise<Set<string>> {
      return new Promise<Set<string>>((resolve) => {
        const [{ ref }] = completions;
        writes.push({ ref, land: (owned = true) => resolve(new Set(owned ? [ref.id] : [])) });
      });
    },
  } as unknown as QueueStorage;
  const started: string[] = [];
  const events = new JobEventBus();
  const heard: string[] = [];
  events.events$.subscribe((event: QueueEvent) => heard.push(`${event.type} ${event.jobId}`));
  let slotsOffered = 0;
  const worker = new QueueWorker(
    'q',
    'TestProcessor',
    {
      async process(job) {
        started.push(job.id);
        return undefined;
      },
    },
    { concurrency: 1, prefetch },
    {
      storage,
      outcomes: new OutcomeWriter(storage, 'w', 500),
      workerId: 'w',
      defaultBackoff: { type: 'fixed', delay: 1 },
      events,
      logger: new Logger('test'),
      onSlotFreed: () => slotsOffered++,
      onRetryScheduled: () => undefined,
      onFinished: () => undefined,
    },
  );
  const jobs$ = new Subject<JobRecord>();
  worker.attach(jobs$);
  // A few turns: the handler's promise, then the writer's turn that gathers a batch, then the write it hands over.
  const settle = async () => {
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  return { worker, jobs$, writes, started, heard, settle, slotsOffered: () => slotsOffered };
}

describe('QueueWorker slots (unit), prefetch 0: a slot is offered once its outcome is queued, and reused once it is written', () => {
  it('offers the slot of a job whose completion is queued, but starts the next job only after that write lands', async () => {
    const { worker, jobs$, writes, started, heard, settle, slotsOffered } = setUp();
    jobs$.next(record('1'));
    await settle();
    expect(started).toEqual(['1']);
    expect(writes.map((write) => write.ref.id)).toEqual(['1']);
    // Queued, not written: the poller may claim for this slot already.
    expect(slotsOffered()).toBe(1);
    expect(worker.freeSlots).toBe(1);

    // The claim came back before the write landed: the job waits, and the slot is not offered twice.
    jobs$.next(record('2'));
    await settle();
    expect(started).toEqual(['1']);
    expect(worker.freeSlots).toBe(0);
    expect(worker.heldAttempts()).toEqual([
      { id: '1', attempt: 1 },
      { id: '2', attempt: 1 },
    ]);

    // For the heartbeat, only those claimed before a time; one claimed "after now" (the clock was set back) counts as old.
    expect(worker.heldAttempts(Date.now() - 1_000)).toEqual([]);
    expect(worker.heldAttempts(Date.now() + 1)).toEqual([
      { id: '1', attempt: 1 },
      { id: '2', attempt: 1 },
    ]);

    writes[0].land();
    await settle();
    expect(started).toEqual(['1', '2']);
    // Job 1 was saved and announced before job 2 began.
    expect(heard).toEqual(['active 1', 'completed 1', 'active 2']);
    writes[1].land();
    await untilIdle(worker);
    expect(worker.heldAttempts()).toEqual([]);
    expect(worker.freeSlots).toBe(1);

    jobs$.next({ ...record('3'), startedAt: Date.now() + 60_000 });
    await settle();
    expect(worker.heldAttempts(Date.now() - 1_000)).toEqual([{ id: '3', attempt: 1 }]);
    writes[2].land();
    await untilIdle(worker);
  });

  it('hands back a job still waiting for its slot at shutdown instead of starting it', async () => {
    const { worker, jobs$, writes, started, settle } = setUp();
    jobs$.next(record('1'));
    await settle();
    jobs$.next(record('2'));
    worker.stopAccepting();
    expect(worker.heldAttempts()).toEqual([
      { id: '1', attempt: 1 },
      { id: '2', attempt: 1 },
    ]);
    expect(worker.takeUnstarted()).toEqual([{ id: '2', attempt: 1 }]);
    writes[0].land();
    await untilIdle(worker);
    await settle();
    expect(started).toEqual(['1']);
    expect(worker.freeSlots).toBe(0);
  });

  it('drops a waiting job that an operator cancels, with a cancelled event, and never starts it', async () => {
    const { worker, jobs$, writes, started, heard, settle } = setUp();
    jobs$.next(record('1'));
    await settle();
    jobs$.next(record('2'));
    expect(worker.cancelRunning('2')).toBe(true);
    expect(worker.cancelRunning('2')).toBe(false);
    writes[0].land();
    await untilIdle(worker);
    await settle();
    expect(started).toEqual(['1']);
    expect(heard).toEqual(['active 1', 'cancelled 2', 'completed 1']);
    expect(worker.heldAttempts()).toEqual([]);
  });
});

describe("QueueWorker slots (unit), prefetch 'auto' (the default): a slot is claimed for as its handler returns", () => {
  it('starts the next job as soon as the outcome is handed to the writer, with at most concurrency handlers', async () => {
    const { worker, jobs$, writes, started, settle, slotsOffered } = setUp('auto');
    jobs$.next(record('1'));
    await settle();
    expect(started).toEqual(['1']);
    expect(slotsOffered()).toBe(1);
    expect(worker.freeSlots).toBe(1);
    jobs$.next(record('2'));
    await settle();
    // Job 1's write has not landed: job 2 runs beside it (one handler, one outcome in writing).
    expect(started).toEqual(['1', '2']);
    expect(worker.heldAttempts()).toEqual([
      { id: '1', attempt: 1 },
      { id: '2', attempt: 1 },
    ]);
    writes[0].land();
    await settle();
    // Its outcome waited for the batch ahead of it, not its start.
    expect(writes.map((write) => write.ref.id)).toEqual(['1', '2']);
    writes[1].land();
    await untilIdle(worker);
    expect(worker.heldAttempts()).toEqual([]);
  });

  it('holds at most 3 × concurrency jobs while outcomes land slowly, and offers the slot again as soon as one lands', async () => {
    const { worker, jobs$, writes, started, settle, slotsOffered } = setUp('auto');
    for (const id of ['1', '2', '3']) {
      jobs$.next(record(id));
      await settle();
    }
    // Three outcomes handed to the writer, none landed (the first batch is still in flight): the bound for concurrency 1.
    expect(started).toEqual(['1', '2', '3']);
    expect(writes.map((write) => write.ref.id)).toEqual(['1']);
    expect(worker.heldAttempts()).toHaveLength(3);
    expect(worker.freeSlots).toBe(0);
    const offeredBefore = slotsOffered();
    writes[0].land();
    await settle();
    // A landed write under the bound is a slot the poller has not heard of: it must be told, or it claims again
    // only at its fallback timer (a 40,000-job run took ten times as long).
    expect(worker.freeSlots).toBe(1);
    expect(slotsOffered()).toBeGreaterThan(offeredBefore);
    writes[1].land();
    await untilIdle(worker);
  });

  it('looks ahead by the slots expected to free during a wait, with a margin for chance once at least one is expected', () => {
    // 10 slots, 3 ms handlers: a 0.9 ms wait expects 3 to free; the number that do is about Poisson(3), whose 95th
    // percentile is about 3 + 2 * sqrt(3).
    expect(lookaheadFor(10, 0.9, 3)).toBeCloseTo(3 + 2 * Math.sqrt(3));
    // Exactly one expected: the margin starts there.
    expect(lookaheadFor(10, 1, 10)).toBeCloseTo(3);
    // Handlers long beside the wait: under one slot expected, no margin, so nothing is claimed ahead once rounded down.
    expect(lookaheadFor(10, 1, 20)).toBeCloseTo(0.5);
    expect(lookaheadFor(1, 2, 1_000)).toBeCloseTo(0.002);
  });

  it('claims ahead only for the slots expected to free during a claim, never more than twice the concurrency', async () => {
    const { worker, jobs$, writes, settle } = setUp('auto');
    jobs$.next(record('1'));
    await settle();
    writes[0].land();
    await untilIdle(worker);
    // The handler took well under a millisecond: a wait of 1 s sees the slot free thousands of times, capped at twice
    // the slot: its own claim and two ahead.
    expect(worker.claimableSlots(1_000)).toBe(3);
    // A claim that is instant beside the handler looks nothing ahead.
    expect(worker.claimableSlots(0)).toBe(1);
  });
});

/** Keeps what the worker logs. */
class CapturingLogger extends Logger {
  readonly lines: string[] = [];
  override error(message: unknown): void {
    this.lines.push(`error ${String(message)}`);
  }
  override warn(message: unknown): void {
    this.lines.push(`warn ${String(message)}`);
  }
}

const permanent = () => Object.assign(new Error('invalid input syntax for type bigint: "1e+300"'), { code: '22P02' });
const busy = () => Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });

/**
 * One worker of concurrency 1 whose handler does what `handle` says, over a stand-in storage whose `retry`, `fail`
 * and `completeMany` do what the test says, with the real completion batcher.
 */
function setUpWrites(storage: Partial<QueueStorage>, handle: () => unknown) {
  const events = new JobEventBus();
  const heard: string[] = [];
  events.events$.subscribe((event: QueueEvent) => heard.push(`${event.type} ${event.jobId}`));
  const logger = new CapturingLogger('test');
  const full = storage as QueueStorage;
  const worker = new QueueWorker(
    'q',
    'TestProcessor',
    { process: async () => handle() },
    { concurrency: 1 },
    {
      storage: full,
      outcomes: new OutcomeWriter(full, 'w', 500),
      workerId: 'w',
      defaultBackoff: { type: 'fixed', delay: 1 },
      events,
      logger,
      onSlotFreed: () => undefined,
      onRetryScheduled: () => undefined,
      onFinished: () => undefined,
    },
  );
  const jobs$ = new Subject<JobRecord>();
  worker.attach(jobs$);
  return { worker, jobs$, heard, logger };
}

describe('QueueWorker outcome writes (unit): only errors a retry can get past are retried', () => {
  it('a retry the database refuses for good is not retried: the attempt is failed with the write error, logged once', async () => {
    const retry = jest.fn(async () => Promise.reject(permanent()));
    const fail = jest.fn(async (..._args: unknown[]) => true);
    const { worker, jobs$, heard, logger } = setUpWrites({ retry, fail }, () => {
      throw new Error('handler failed');
    });
    jobs$.next(record('1'));
    // Before the fix this never became idle: the write was retried for ever and the slot stayed taken.
    await untilIdle(worker);
    expect(retry).toHaveBeenCalledTimes(1);
    expect(fail).toHaveBeenCalledTimes(1);
    const stored = JSON.parse(fail.mock.calls[0][2] as string) as Record<string, unknown>;
    expect(stored).toMatchObject({ name: 'OutcomeWriteError', attempt: 1 });
    expect(stored.message).toContain('Saving the outcome (retry) of job 1 (queue "q") failed: invalid input syntax for type bigint');
    expect(heard).toEqual(['active 1', 'failed 1']);
    expect(logger.lines.filter((line) => line.includes('refused'))).toHaveLength(1);
    expect(logger.lines.filter((line) => line.includes('retrying:'))).toEqual([]);
    expect(worker.freeSlots).toBe(1);
    expect(worker.heldAttempts()).toEqual([]);
  });

  it('when even the failure cannot be written, it gives up at once: slot freed, lease left to expire, no event', async () => {
    const retry = jest.fn(async () => Promise.reject(permanent()));
    const fail = jest.fn(async (..._args: unknown[]) => Promise.reject(permanent()));
    const { worker, jobs$, heard, logger } = setUpWrites({ retry, fail }, () => {
      throw new Error('handler failed');
    });
    jobs$.next(record('1'));
    await untilIdle(worker);
    expect(retry).toHaveBeenCalledTimes(1);
    expect(fail).toHaveBeenCalledTimes(1);
    expect(heard).toEqual(['active 1']);
    expect(logger.lines.filter((line) => line.includes('giving up'))).toHaveLength(1);
    // Not held any more: the heartbeat stops renewing its lease, so recovery takes it.
    expect(worker.heldAttempts()).toEqual([]);
    expect(worker.freeSlots).toBe(1);
  });

  it('a completion the database refuses for good fails the attempt instead of being retried for ever', async () => {
    const completeMany = jest.fn(async () => Promise.reject(permanent()));
    const fail = jest.fn(async (..._args: unknown[]) => true);
    const { worker, jobs$, heard } = setUpWrites({ completeMany, fail }, () => ({ ok: true }));
    jobs$.next(record('1'));
    await untilIdle(worker);
    expect(completeMany).toHaveBeenCalledTimes(1);
    expect(JSON.parse(fail.mock.calls[0][2] as string)).toMatchObject({ name: 'OutcomeWriteError' });
    expect(heard).toEqual(['active 1', 'failed 1']);
  });

  it('a busy database is retried until the write lands', async () => {
    let calls = 0;
    const retry = jest.fn(async () => (++calls < 3 ? Promise.reject(busy()) : true));
    const fail = jest.fn(async (..._args: unknown[]) => true);
    const { worker, jobs$, heard, logger } = setUpWrites({ retry, fail }, () => {
      throw new Error('handler failed');
    });
    jobs$.next(record('1'));
    await untilIdle(worker);
    expect(retry).toHaveBeenCalledTimes(3);
    expect(fail).not.toHaveBeenCalled();
    expect(heard).toEqual(['active 1', 'retrying 1']);
    expect(logger.lines.filter((line) => line.includes('failed, retrying: '))).toHaveLength(2);
  });
});

/** A write of any kind that the test lands by hand, with what the stand-in storage says about ownership. */
interface HeldStatement {
  kind: 'complete' | 'retry' | 'fail' | 'pause' | 'group-pause';
  ids: string[];
  land(owned?: boolean): void;
}

/**
 * A worker over the real outcome writer and a storage whose every outcome statement is held until the test lands
 * it; the handler does what `handle` says. Records events, finished notices and slot offers.
 */
function setUpHeld(concurrency: number, handle: (job: { id: string; attempt: number }) => unknown) {
  const statements: HeldStatement[] = [];
  const hold = <T>(kind: HeldStatement['kind'], ids: string[], value: (owned: boolean) => T) =>
    new Promise<T>((resolve) => statements.push({ kind, ids, land: (owned = true) => resolve(value(owned)) }));
  const storage = {
    completeMany: (completions: { ref: AttemptRef }[]) =>
      hold(
        'complete',
        completions.map(({ ref }) => ref.id),
        (owned) => new Set(owned ? completions.map(({ ref }) => ref.id) : []),
      ),
    retry: (ref: AttemptRef) => hold('retry', [ref.id], (owned) => owned),
    fail: (ref: AttemptRef) => hold('fail', [ref.id], (owned) => owned),
    rateLimit: (_queue: string, ref: AttemptRef) => hold('pause', [ref.id], (owned) => owned),
    groupRateLimit: (_queue: string, group: string, ref: AttemptRef) => hold('group-pause', [`${group}:${ref.id}`], (owned) => owned),
    release: async (refs: AttemptRef[]) => {
      releases.push(refs.map((ref) => ref.id));
      released.push(...refs.map((ref) => ref.id));
      return refs.length;
    },
  } as unknown as QueueStorage;
  const released: string[] = [];
  const releases: string[][] = [];
  const events = new JobEventBus();
  const heard: string[] = [];
  events.events$.subscribe((event: QueueEvent) => heard.push(`${event.type} ${event.jobId}#${event.attempt}`));
  const finished: string[] = [];
  let slotsOffered = 0;
  const worker = new QueueWorker(
    'q',
    'TestProcessor',
    { process: async (job) => handle(job) },
    { concurrency },
    {
      storage,
      outcomes: new OutcomeWriter(storage, 'w', 500),
      workerId: 'w',
      defaultBackoff: { type: 'fixed', delay: 0 },
      events,
      logger: new CapturingLogger('test'),
      onSlotFreed: () => slotsOffered++,
      onRetryScheduled: () => undefined,
      onFinished: (_queue, status) => finished.push(status),
    },
  );
  const jobs$ = new Subject<JobRecord>();
  worker.attach(jobs$);
  const settle = async () => {
    for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  const route = (id: string, attempts = 1, group: string | null = null) => jobs$.next({ ...record(id), attempts, group });
  return { worker, route, statements, heard, finished, released, releases, settle, slotsOffered: () => slotsOffered };
}

describe('QueueWorker (unit): orders, fences and hand-backs that e2e tests only see as timeouts', () => {
  it("a retried job claimed again before its retry landed starts only after it: its next 'active' follows its 'retrying'", async () => {
    let runs = 0;
    const { worker, route, statements, heard, settle } = setUpHeld(1, () => {
      if (++runs === 1) throw new Error('first attempt fails');
      return undefined;
    });
    route('1', 1);
    await settle();
    expect(statements.map(({ kind }) => kind)).toEqual(['retry']);
    // The retry is queued, so the slot is offered; a pool hands the claim back first.
    expect(worker.freeSlots).toBe(1);
    route('1', 2);
    await settle();
    expect(runs).toBe(1);
    statements[0].land();
    await settle();
    expect(heard).toEqual(['active 1#1', 'retrying 1#1', 'active 1#2']);
    statements[1].land();
    await untilIdle(worker);
    expect(heard).toEqual(['active 1#1', 'retrying 1#1', 'active 1#2', 'completed 1#2']);
  });

  it('a RateLimitError hands back, once the pause is written, the jobs that would start during it: waiting and still arriving', async () => {
    const started: string[] = [];
    const { worker, route, statements, released, settle } = setUpHeld(1, (job) => {
      started.push(job.id);
      if (job.id === '1') throw new RateLimitError(60_000);
      return undefined;
    });
    // 1 runs; 2 waits for the slot (routed by the same claim).
    route('1');
    route('2');
    await settle();
    expect(statements.map(({ kind, ids }) => `${kind} ${ids.join()}`)).toEqual(['pause 1']);
    // A claim that was in flight when 1 hit the limit brings 3.
    route('3');
    await settle();
    // Nothing goes back before the pause is written: another process could claim it first.
    expect(released).toEqual([]);
    statements[0].land();
    await settle();
    await untilIdle(worker);
    expect(started).toEqual(['1']);
    expect(released.sort()).toEqual(['2', '3']);
    expect(worker.heldAttempts()).toEqual([]);
  });

  it('a shorter RateLimitError during a longer pause does not end it: jobs arriving after the shorter one still go back', async () => {
    const started: string[] = [];
    const { worker, route, statements, released, settle } = setUpHeld(2, (job) => {
      started.push(job.id);
      if (job.id === '1') throw new RateLimitError(60_000);
      if (job.id === '2') throw new RateLimitError(1);
      return undefined;
    });
    route('1');
    route('2');
    await settle();
    expect(statements.map(({ kind, ids }) => `${kind} ${ids.join()}`)).toEqual(['pause 1', 'pause 2']);
    // Past the shorter pause's end, well inside the longer one's.
    const shortEnds = Date.now() + 2;
    await waitFor(() => Date.now() > shortEnds, 'the shorter pause to end');
    route('3');
    await settle();
    for (const statement of statements) statement.land();
    await settle();
    await untilIdle(worker);
    expect(started).toEqual(['1', '2']);
    expect(released).toContain('3');
    expect(worker.heldAttempts()).toEqual([]);
  });

  it("a GroupRateLimitError pauses its group alone: that group's waiting and arriving jobs go back once the pause is written, others start", async () => {
    const started: string[] = [];
    const { worker, route, statements, released, settle } = setUpHeld(1, (job) => {
      started.push(job.id);
      if (job.id === '1') throw new GroupRateLimitError(60_000);
      return undefined;
    });
    // 1 (group a) runs; 2 (a) and 3 (b) wait for the slot.
    route('1', 1, 'a');
    route('2', 1, 'a');
    route('3', 1, 'b');
    await settle();
    expect(statements.map(({ kind, ids }) => `${kind} ${ids.join()}`)).toEqual(['group-pause a:1']);
    // A claim in flight brings 4 (a) and 5 (b): 4 goes back, 5 waits for its turn.
    route('4', 1, 'a');
    route('5', 1, 'b');
    await settle();
    expect(released).toEqual([]);
    statements[0].land();
    await settle();
    // 3 took the freed slot; its completion and then 5's land.
    for (let landed = 1; landed < 3; landed++) {
      await settle();
      statements[landed].land();
    }
    await untilIdle(worker);
    expect(started).toEqual(['1', '3', '5']);
    expect(released.sort()).toEqual(['2', '4']);
    expect(worker.heldAttempts()).toEqual([]);
  });

  it('jobs a claim routes during a RateLimitError pause stay held (leases kept, shutdown waits) and go back in one statement', async () => {
    const { worker, route, statements, releases, settle } = setUpHeld(1, (job) => {
      if (job.id === '1') throw new RateLimitError(60_000);
      return undefined;
    });
    route('1');
    await settle();
    route('3');
    route('4');
    await settle();
    expect(releases).toEqual([]);
    expect(
      worker
        .heldAttempts()
        .map((ref) => ref.id)
        .sort(),
    ).toEqual(['1', '3', '4']);
    let idle = false;
    void worker.whenIdle().then(() => (idle = true));
    await settle();
    expect(idle).toBe(false);
    statements[0].land();
    await settle();
    await untilIdle(worker);
    expect(idle).toBe(true);
    expect(releases).toContainEqual(['3', '4']);
    expect(worker.heldAttempts()).toEqual([]);
  });

  it('announces nothing for an outcome the database says is no longer ours, and frees the slot', async () => {
    const { worker, route, statements, heard, finished, settle } = setUpHeld(1, () => {
      throw new UnrecoverableError('bad input');
    });
    route('1');
    await settle();
    statements[0].land(false);
    await untilIdle(worker);
    expect(heard).toEqual(['active 1#1']);
    expect(finished).toEqual([]);
    expect(worker.freeSlots).toBe(1);
    expect(worker.heldAttempts()).toEqual([]);
  });

  it('never saves the outcome of a stale run: the same job claimed again while its cancelled run still runs', async () => {
    const release: (() => void)[] = [];
    const { worker, route, statements, heard, settle } = setUpHeld(2, () => new Promise<void>((resolve) => release.push(resolve)));
    route('1', 1);
    await settle();
    // Cancelled and retried elsewhere before the heartbeat noticed: this process claims it again, same attempt number.
    route('1', 1);
    await settle();
    release[0]();
    await settle();
    expect(statements).toEqual([]);
    release[1]();
    await settle();
    expect(statements.map(({ kind, ids }) => `${kind} ${ids.join()}`)).toEqual(['complete 1']);
    statements[0].land();
    await untilIdle(worker);
    expect(heard).toEqual(['active 1#1', 'active 1#1', 'completed 1#1']);
  });

  it('never runs more handlers than its concurrency, however jobs are routed', async () => {
    let inHandler = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const { worker, route, statements, settle } = setUpHeld(2, async () => {
      most = Math.max(most, ++inHandler);
      await new Promise<void>((resolve) => release.push(resolve));
      inHandler--;
    });
    for (let id = 1; id <= 6; id++) route(String(id));
    await settle();
    expect(most).toBe(2);
    for (let round = 0; round < 10 && (release.length > 0 || statements.length > 0); round++) {
      release.splice(0).forEach((go) => go());
      await settle();
      statements.splice(0).forEach((statement) => statement.land());
      await settle();
      expect(inHandler).toBeLessThanOrEqual(2);
    }
    await untilIdle(worker);
    expect(most).toBe(2);
  });

  it('at forced shutdown hands back its running attempts, saves and announces nothing of them, and frees their slots', async () => {
    const { worker, route, statements, heard, settle, slotsOffered } = setUpHeld(
      2,
      (job) => new Promise((_resolve, reject) => setImmediate(() => reject(new Error(`aborted ${job.id}`)))),
    );
    route('1');
    route('2');
    worker.stopAccepting();
    expect(worker.abortRunning(new Error('shutdown')).map(({ id }) => id)).toEqual(['1', '2']);
    await settle();
    await untilIdle(worker);
    expect(statements).toEqual([]);
    expect(heard).toEqual(['active 1#1', 'active 2#1']);
    expect(slotsOffered()).toBe(2);
    expect(worker.heldAttempts()).toEqual([]);
  });
});

/**
 * A job whose handler failed is written back for a retry; on PostgreSQL's pool, a claim on another connection can see
 * that write commit and bring the job's next attempt back before the write's own answer arrives. The next attempt
 * must wait for it: its 'active' after the 'retrying' of the attempt before, and never two attempts of a job at once.
 * Two slots: the next attempt finds one free, so only the job's own pending save can hold it back.
 */
describe('QueueWorker (unit): a job claimed again while its retry is still being saved', () => {
  const failFirst = (job: { attempt: number }) => {
    if (job.attempt === 1) throw new Error('first attempt fails');
  };

  it('starts the next attempt only once the retry is saved and announced', async () => {
    const { worker, route, statements, heard, settle } = setUpHeld(2, failFirst);
    route('7', 1);
    await settle();
    expect(statements.map(({ kind, ids }) => [kind, ids])).toEqual([['retry', ['7']]]);

    route('7', 2);
    await settle();
    expect(heard).toEqual(['active 7#1']);
    expect(worker.heldAttempts()).toEqual([
      { id: '7', attempt: 1 },
      { id: '7', attempt: 2 },
    ]);

    statements[0].land();
    await settle();
    expect(heard).toEqual(['active 7#1', 'retrying 7#1', 'active 7#2']);
    statements[1].land();
    await untilIdle(worker);
    expect(heard).toEqual(['active 7#1', 'retrying 7#1', 'active 7#2', 'completed 7#2']);
    expect(worker.heldAttempts()).toEqual([]);
    expect(worker.freeSlots).toBe(2);
  });

  it('never starts it when shutdown takes it first, or an operator cancels it', async () => {
    for (const take of ['shutdown', 'cancel'] as const) {
      const { worker, route, statements, heard, settle } = setUpHeld(2, failFirst);
      route('7', 1);
      await settle();
      route('7', 2);
      await settle();
      if (take === 'shutdown') {
        worker.stopAccepting();
        expect(worker.takeUnstarted()).toEqual([{ id: '7', attempt: 2 }]);
      } else {
        expect(worker.cancelRunning('7')).toBe(true);
      }
      statements[0].land();
      await untilIdle(worker);
      await settle();
      expect(worker.heldAttempts()).toEqual([]);
      const cancelled = take === 'cancel' ? ['cancelled 7#2'] : [];
      expect(heard).toEqual(['active 7#1', ...cancelled, 'retrying 7#1']);
    }
  });

  it('hands it back with the running jobs when a forced shutdown aborts them', async () => {
    const { worker, route, statements, heard, settle } = setUpHeld(2, failFirst);
    route('7', 1);
    await settle();
    route('7', 2);
    await settle();
    // The running attempt goes back with its handler's start (its hand-back's run records it); the following one never started.
    expect(worker.abortRunning(new Error('forced'))).toEqual([
      { id: '7', attempt: 2 },
      { id: '7', attempt: 1, startedAt: expect.any(Number) },
    ]);
    // The retry was already on its way and lands (the hand-back of attempt 1 then finds nothing to release); attempt 2
    // never starts.
    statements[0].land();
    await untilIdle(worker);
    await settle();
    expect(heard).toEqual(['active 7#1', 'retrying 7#1']);
    expect(worker.heldAttempts()).toEqual([]);
  });
});
