/**
 * Whatever a handler throws or returns, and whatever its backoff computes, the attempt ends in a defined state
 * promptly: the job never stays `running` on a write that cannot succeed, nor on an error that cannot be read.
 * Runs on every backend.
 */
import { Test } from '@nestjs/testing';
import {
  InvalidJobResultError,
  MAX_RETRY_DELAY,
  Job,
  JobInfo,
  QueueAdmin,
  QueueEvent,
  QueueEvents,
  QueueProducer,
  SqliteQueueModule,
} from '../lib';
import { DataSource } from 'typeorm';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { defineProcessor } from './fixtures/define-processor';
import { rawQuery } from './support/raw-sqlite';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, TestDatabase, MIGRATED } from './support/backends';

/** What the handler of queue `hostile` does, per job: `data.act` names one entry. */
const acts: Record<string, (job: Job) => unknown> = {
  throwNullPrototypeCycle: () => {
    const thrown = Object.create(null) as Record<string, unknown>;
    thrown.self = thrown;
    throw thrown;
  },
  throwErrorLike: () => {
    throw { name: 'PaymentDeclined', message: 'card declined', code: 'card_declined' };
  },
  throwHostileProxy: () => {
    throw new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
        getPrototypeOf: () => {
          throw new Error('trap');
        },
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
  },
  throwError: () => {
    throw new Error('plain failure');
  },
  returnBigInt: () => ({ total: 10n }),
  returnCycle: () => {
    const result: Record<string, unknown> = { ok: true };
    result.self = result;
    return result;
  },
  returnNegativeZero: () => ({ n: -0, list: [1, 'a'] }),
};

/**
 * Makes the database refuse, with an error no retry can fix, every write that puts a failed attempt back to pending
 * (a retry): a trigger, on the table the app of `database` uses.
 */
async function refuseRetryWrites(database: TestDatabase): Promise<void> {
  const when = `NEW.status = 'pending' AND OLD.status = 'running' AND NEW.error IS NOT NULL`;
  const postgres = database.options.postgres;
  if (!postgres) {
    await rawQuery(
      database,
      `CREATE TRIGGER refuse_retry BEFORE UPDATE ON ${JOBS_TABLE} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'retry refused'); END`,
    );
    return;
  }
  const schema = postgres.schema!;
  const dataSource = new DataSource({ type: 'postgres', url: postgres.url, poolSize: 1 });
  await dataSource.initialize();
  try {
    await dataSource.query(
      `CREATE FUNCTION "${schema}".refuse_retry() RETURNS trigger LANGUAGE plpgsql AS ` +
        `$$ BEGIN RAISE EXCEPTION 'retry refused' USING ERRCODE = '22003'; END $$`,
    );
    await dataSource.query(
      `CREATE TRIGGER refuse_retry BEFORE UPDATE ON "${schema}".${JOBS_TABLE} FOR EACH ROW WHEN (${when}) ` +
        `EXECUTE FUNCTION "${schema}".refuse_retry()`,
    );
  } finally {
    await dataSource.destroy();
  }
}

describeEachBackend('hostile outcomes: every thrown value, result and backoff ends its attempt in a defined state', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  const heard: QueueEvent[] = [];

  async function start(maxAttempts = 3): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
    heard.length = 0;
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 100 })],
      providers: [
        defineProcessor<{ act: string }>('hostile', async (job) => acts[job.data.act](job), {
          maxAttempts,
          backoff: { type: 'fixed', delay: 0 },
        }),
      ],
    }).compile();
    await current.app.init();
    current.app.get(QueueEvents).events$.subscribe((event) => heard.push(event));
    return { producer: current.app.get(QueueProducer), admin: current.app.get(QueueAdmin) };
  }

  /** The job's events after `added` (which a fast claim may overtake: the producer announces it once the insert returns). */
  function attemptEvents(id: string): string[] {
    return heard.filter((event) => event.jobId === id && event.type !== 'added').map((event) => event.type);
  }

  async function settled(admin: QueueAdmin, id: string, done: (job: JobInfo) => boolean): Promise<JobInfo> {
    let job: JobInfo | null = null;
    await waitFor(async () => {
      job = await admin.getJob(id);
      return job !== null && done(job);
    }, `job ${id} to settle`);
    return job!;
  }

  it('a backoff that computes a delay past MAX_RETRY_DELAY (the largest accepted, 100 years) schedules the retry at a valid date, capped', async () => {
    const { producer, admin } = await start();
    const before = Date.now();
    const { id } = await producer.add(
      'hostile',
      { act: 'throwError' },
      { backoff: { type: 'fixed', delay: 100 * 365.25 * 24 * 3_600_000 } },
    );
    const job = await settled(admin, id, (info) => info.status !== 'running' && info.attempts === 1 && info.error !== null);
    expect(job).toMatchObject({ status: 'pending', attempts: 1, lockedBy: null, error: { message: 'plain failure', attempt: 1 } });
    expect(Number.isNaN(job.runAt.getTime())).toBe(false);
    expect(job.runAt.getTime()).toBeGreaterThanOrEqual(before + MAX_RETRY_DELAY);
    expect(job.runAt.getTime()).toBeLessThanOrEqual(Date.now() + MAX_RETRY_DELAY);
    const retrying = heard.find((event) => event.type === 'retrying' && event.jobId === id);
    expect(retrying).toMatchObject({ nextRunAt: job.runAt });
  });

  it('an outcome write the database refuses for good is not retried for ever: the attempt fails with OutcomeWriteError', async () => {
    const { producer, admin } = await start();
    await refuseRetryWrites(current.db);
    const { id } = await producer.add('hostile', { act: 'throwError' });
    // Before the fix the write was retried for ever: the job stayed running, its slot taken.
    const job = await settled(admin, id, (info) => info.status === 'failed');
    expect(job).toMatchObject({ attempts: 1, lockedBy: null, error: { name: 'OutcomeWriteError', attempt: 1 } });
    expect(job.error!.message).toContain(`Saving the outcome (retry) of job ${id} (queue "hostile") failed`);
    expect(job.error!.message).toContain('retry refused');
    expect(attemptEvents(id)).toEqual(['active', 'failed']);
    // The slot is free again: the next job runs.
    const next = await producer.add('hostile', { act: 'returnNegativeZero' });
    await settled(admin, next.id, (info) => info.status === 'completed');
  });

  it('a thrown null-prototype object with a cycle fails the attempt at once (it does not wait for its lease)', async () => {
    const { producer, admin } = await start(1);
    const { id } = await producer.add('hostile', { act: 'throwNullPrototypeCycle' });
    const job = await settled(admin, id, (info) => info.status === 'failed');
    expect(job.attempts).toBe(1);
    expect(job.error).toMatchObject({ name: 'NonErrorThrown', attempt: 1 });
    expect(typeof job.error!.message).toBe('string');
    expect(attemptEvents(id)).toEqual(['active', 'failed']);
  });

  it('a thrown error-like object keeps its name, message and code; a throwing Proxy still fails cleanly', async () => {
    const { producer, admin } = await start(1);
    const [errorLike, proxy] = await producer.addBulk('hostile', [
      { data: { act: 'throwErrorLike' } },
      { data: { act: 'throwHostileProxy' } },
    ]);
    const first = await settled(admin, errorLike.id, (info) => info.status === 'failed');
    expect(first.error).toMatchObject({ name: 'PaymentDeclined', message: 'card declined', code: 'card_declined', attempt: 1 });
    const second = await settled(admin, proxy.id, (info) => info.status === 'failed');
    expect(second.error).toMatchObject({ name: 'NonErrorThrown', attempt: 1 });
  });

  it.each(['returnBigInt', 'returnCycle'])('%s: a result JSON cannot hold fails the job for good: InvalidJobResultError', async (act) => {
    const { producer, admin } = await start(3);
    const { id } = await producer.add('hostile', { act });
    const job = await settled(admin, id, (info) => info.status === 'failed');
    // For good, at the first attempt: running the handler again would repeat its work for the same result.
    expect(job).toMatchObject({ attempts: 1, result: null, error: { name: InvalidJobResultError.name, attempt: 1 } });
    expect(job.error!.message).toContain(act === 'returnBigInt' ? 'result.total is a BigInt' : 'result.self refers back');
    expect(attemptEvents(id)).toEqual(['active', 'failed']);
  });

  it('the completed event carries the result as stored (its JSON round-trip), not the object the handler returned', async () => {
    const { producer, admin } = await start();
    const { id } = await producer.add('hostile', { act: 'returnNegativeZero' });
    const job = await settled(admin, id, (info) => info.status === 'completed');
    await waitFor(() => heard.some((event) => event.type === 'completed' && event.jobId === id), 'the completed event');
    const completed = heard.find((event) => event.type === 'completed' && event.jobId === id) as QueueEvent & { result: unknown };
    // JSON stores -0 as 0: the event says what getJob() says.
    expect(job.result).toStrictEqual({ n: 0, list: [1, 'a'] });
    expect(completed.result).toStrictEqual(job.result);
  });
});
