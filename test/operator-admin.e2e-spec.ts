/**
 * QueueAdmin's operator calls in a real Nest app on every backend: promote (BullMQ's "run
 * now") with its typed errors, pause / resume / run-now of a schedule with ScheduleNotFoundError, a schedule's last
 * run, and listProcesses. Nothing is written on a refusal.
 */
import {
  Job,
  JobNotFoundError,
  JobWaitingForChildrenError,
  InvalidJobStateError,
  Processor,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  ScheduleNotFoundError,
} from '../lib';
import { rawSql } from './fixtures/legacy-schema';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

const ran: string[] = [];
/** While set, jobs stay running until `release()`. */
let hold: Promise<void> | null = null;
let release = (): void => undefined;

function holdJobs(): void {
  hold = new Promise<void>((resolve) => (release = resolve));
}

@Processor('op-q', { concurrency: 3 })
class OpProcessor implements QueueProcessor {
  async process(job: Job): Promise<string> {
    ran.push(job.id);
    if (hold) await hold;
    return job.id;
  }
}

@Processor('idle-q', { concurrency: 2 })
class IdleProcessor implements QueueProcessor {
  async process(): Promise<void> {}
}

describeEachBackend('QueueAdmin operator calls', (backend) => {
  // Declared before the app's own hooks: held jobs end, so the app's shutdown does not wait on them.
  afterEach(() => {
    hold = null;
    release();
  });
  const t = perTestApp(backend, MIGRATED);
  let admin: QueueAdmin;
  let producer: QueueProducer;

  beforeEach(async () => {
    ran.length = 0;
    hold = null;
    const app = await t.startApp({ providers: [OpProcessor], module: { pollInterval: 50, workerId: 'op-worker' } });
    admin = app.get(QueueAdmin);
    producer = app.get(QueueProducer);
  });

  it('promote runs a delayed job now; refuses a running, a finished, a waiting parent and a missing job with typed errors', async () => {
    const delayed = await producer.add('op-q', { n: 1 }, { delay: 3_600_000 });
    await expect(admin.promote(delayed.id)).resolves.toBe(true);
    await waitFor(async () => (await admin.getJob(delayed.id))?.status === 'completed', 'promoted job completed');
    await expect(admin.promote(delayed.id)).rejects.toBeInstanceOf(InvalidJobStateError);
    await expect(admin.promote('987654')).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(admin.promote('')).rejects.toBeInstanceOf(JobNotFoundError);

    // A parent waiting for a child that is delayed: refused, and the parent is left waiting.
    const parent = await producer.addFlow({
      queue: 'op-q',
      data: { p: 1 },
      children: [{ queue: 'op-q', data: { c: 1 }, options: { delay: 3_600_000 } }],
    });
    const refused = (await admin.promote(parent.id).catch((error: unknown) => error)) as JobWaitingForChildrenError;
    expect(refused).toBeInstanceOf(JobWaitingForChildrenError);
    expect(refused.waitingFor).toBe('children');
    expect((await admin.getJob(parent.id))?.flow?.waitingForChildren).toBe(true);
    const [child] = (await admin.getJob(parent.id))!.flow!.childrenIds;
    await expect(admin.promote(child)).resolves.toBe(true);
    await waitFor(async () => (await admin.getJob(parent.id))?.status === 'completed', 'parent ran after its child');
    // Already due: nothing to move.
    holdJobs();
    const due = await producer.add('op-q', { n: 2 });
    await waitFor(async () => (await admin.getJob(due.id))?.status === 'running', 'due job running');
    await expect(admin.promote(due.id)).rejects.toThrow(/it is running/);
  });

  it('pauseSchedule, resumeSchedule and runScheduleNow; getLastScheduleRun; ScheduleNotFoundError writes nothing', async () => {
    await producer.upsertSchedule('op-q', 'hourly', { every: 3_600_000, data: { kind: 'hourly' } });
    const before = (await producer.listSchedules())[0];
    expect(before.paused).toBe(false);
    expect(await admin.getLastScheduleRun('op-q', 'hourly')).toBeNull();

    await admin.pauseSchedule('op-q', 'hourly');
    await admin.pauseSchedule('op-q', 'hourly');
    expect((await producer.listSchedules())[0]).toMatchObject({ paused: true, nextRunAt: before.nextRunAt });
    const id = await admin.runScheduleNow('op-q', 'hourly');
    await waitFor(async () => (await admin.getJob(id))?.status === 'completed', 'the run-now job completed');
    expect(await admin.getJob(id)).toMatchObject({ name: 'hourly', data: { kind: 'hourly' } });
    expect(await admin.getLastScheduleRun('op-q', 'hourly')).toMatchObject({ id, status: 'completed' });
    expect((await producer.listSchedules())[0].paused).toBe(true);

    await admin.resumeSchedule('op-q', 'hourly');
    await admin.resumeSchedule('op-q', 'hourly');
    const after = (await producer.listSchedules())[0];
    expect(after.paused).toBe(false);
    expect(after.nextRunAt.getTime()).toBeGreaterThan(Date.now());

    for (const call of [
      () => admin.pauseSchedule('op-q', 'nope'),
      () => admin.resumeSchedule('op-q', 'nope'),
      () => admin.runScheduleNow('nope-q', 'hourly'),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    }
    expect((await producer.listSchedules()).map((s) => `${s.queue}/${s.name}`)).toEqual(['op-q/hourly']);
    expect(await admin.getCounts('nope-q')).toMatchObject({ pending: 0 });
  });

  it('runScheduleNow: each of 20 concurrent calls makes its own run and returns its id; two in a row make two', async () => {
    await producer.upsertSchedule('op-q', 'hourly', { every: 3_600_000, data: { kind: 'hourly' } });
    const before = (await producer.listSchedules())[0];
    holdJobs();
    const ids = await Promise.all(Array.from({ length: 20 }, () => admin.runScheduleNow('op-q', 'hourly')));
    expect(new Set(ids).size).toBe(20);
    const first = await admin.runScheduleNow('op-q', 'hourly');
    const second = await admin.runScheduleNow('op-q', 'hourly');
    expect(new Set([...ids, first, second]).size).toBe(22);
    // Every id acknowledged is a job of that schedule, and there is no other.
    const stored = await rawSql<{ id: number | string; name: string }>(t.db, [
      `SELECT id, name FROM {schema}.nest_queue_jobs WHERE queue = 'op-q' ORDER BY id`,
    ]);
    expect(stored.map((row) => String(row.id)).sort()).toEqual([...ids, first, second].sort());
    expect(new Set(stored.map((row) => row.name))).toEqual(new Set(['hourly']));
    expect(await admin.getLastScheduleRun('op-q', 'hourly')).toMatchObject({ id: second });
    // A run made by hand is no occurrence: the schedule's next run stays where it was.
    expect((await producer.listSchedules())[0].nextRunAt).toEqual(before.nextRunAt);
  });

  it('runScheduleNow followed by the scheduled occurrence: both run, neither is taken for a duplicate', async () => {
    await producer.upsertSchedule('op-q', 'often', { every: 1_000, data: { kind: 'often' } });
    const { nextRunAt } = (await producer.listSchedules())[0];
    const byHand = await admin.runScheduleNow('op-q', 'often');
    expect((await producer.listSchedules())[0].nextRunAt).toEqual(nextRunAt);
    await waitFor(
      async () => (await admin.getCounts('op-q')).completed >= 2,
      'the run made by hand and the scheduled occurrence completed',
    );
    const jobs = await admin.getJobs('op-q', { status: 'completed' });
    expect(jobs.map((job) => job.id)).toContain(byHand);
    expect(jobs.filter((job) => job.id !== byHand).every((job) => job.name === 'often')).toBe(true);
    // The occurrence due at that next run is a job of its own: the run made by hand did not take its place (later
    // occurrences alone would also make two completed jobs).
    const occurrenceKey = `often@${nextRunAt.getTime()}`;
    const rows = await rawSql<{ id: number | string; schedule_key: string }>(t.db, [
      `SELECT id, schedule_key FROM {schema}.nest_queue_jobs WHERE queue = 'op-q' ORDER BY id`,
    ]);
    const occurrence = rows.find((row) => row.schedule_key === occurrenceKey);
    expect(occurrence).toBeDefined();
    expect(String(occurrence!.id)).not.toBe(byHand);
  });

  it('runScheduleNow in the very millisecond of the next occurrence: both run, the occurrence is no duplicate of it', async () => {
    await producer.upsertSchedule('op-q', 'often', { every: 1_000, data: { kind: 'often' } });
    const { nextRunAt } = (await producer.listSchedules())[0];
    // The call's clock reads the occurrence's own time (a run made by hand and an occurrence can share a millisecond).
    const clock = jest.spyOn(Date, 'now').mockReturnValue(nextRunAt.getTime());
    let byHand: string;
    try {
      byHand = await admin.runScheduleNow('op-q', 'often');
    } finally {
      clock.mockRestore();
    }
    const occurrenceKey = `often@${nextRunAt.getTime()}`;
    const occurrence = async () =>
      (
        await rawSql<{ id: number | string }>(t.db, [`SELECT id FROM {schema}.nest_queue_jobs WHERE schedule_key = ?`], [occurrenceKey])
      ).map((row) => String(row.id));
    await waitFor(async () => (await admin.getCounts('op-q')).completed >= 2, 'two runs completed');
    await waitFor(async () => (await occurrence()).length === 1, 'the occurrence enqueued');
    expect(await occurrence()).not.toContain(byHand);
    expect((await admin.getJob(byHand))?.status).toBe('completed');
  });

  it('listProcesses: this app, the worker running jobs with its queues and last seen, the announcements', async () => {
    holdJobs();
    const job = await producer.add('op-q', {});
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'running', 'running');
    await waitFor(async () => (await admin.listProcesses()).announcements.length > 0, 'announced');
    const processes = await admin.listProcesses();
    expect(processes.self).toEqual({ workerId: 'op-worker', processors: [{ queue: 'op-q', concurrency: 3 }] });
    expect(processes.workers).toEqual([{ workerId: 'op-worker', queues: [{ queue: 'op-q', running: 1 }], lastSeen: expect.any(Date) }]);
    expect(Date.now() - processes.workers[0].lastSeen.getTime()).toBeLessThan(60_000);
    expect(processes.announcements.map((a) => a.queue)).toEqual(['op-q']);
    expect(processes.announcements[0].until.getTime()).toBeGreaterThan(Date.now());
  });

  it('listProcesses: an idle process shows with its processors; a shutdown shows as stopped, a silent end as lost', async () => {
    holdJobs();
    const job = await producer.add('op-q', {});
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'running', 'running');
    const idle = await t.startApp({ providers: [IdleProcessor], module: { pollInterval: 50, workerId: 'idle-worker' } });
    // What a process killed -9 leaves: rows whose announcement lapsed, with no shutdown recorded.
    const gone = Date.now() - 60_000;
    await rawSql(t.db, [
      `INSERT INTO {schema}.nest_queue_processes (worker_id, queue, concurrency, started_at, seen_at, until, stopped_at)
       VALUES ('killed-worker', 'op-q', 4, ${gone - 1000}, ${gone}, ${gone + 100}, NULL)`,
    ]);
    const byId = async () => new Map((await admin.listProcesses()).processes.map((p) => [p.workerId, p]));
    await waitFor(async () => (await byId()).has('idle-worker'), 'the idle process announced itself');
    const seen = await byId();
    expect([...seen.keys()]).toEqual(['idle-worker', 'op-worker', 'killed-worker']);
    expect(seen.get('idle-worker')).toMatchObject({
      state: 'live',
      stoppedAt: null,
      processors: [{ queue: 'idle-q', concurrency: 2, running: 0 }],
    });
    expect(seen.get('op-worker')).toMatchObject({ state: 'live', processors: [{ queue: 'op-q', concurrency: 3, running: 1 }] });
    expect(seen.get('killed-worker')).toMatchObject({ state: 'lost', stoppedAt: null, lastSeen: new Date(gone) });
    const live = seen.get('idle-worker')!;
    expect(live.startedAt.getTime()).toBeLessThanOrEqual(live.lastSeen.getTime());
    expect(Date.now() - live.lastSeen.getTime()).toBeLessThan(60_000);
    // The idle process runs nothing, so only the announcements show it: `workers` lists the busy one alone.
    expect((await admin.listProcesses()).workers.map((w) => w.workerId)).toEqual(['op-worker']);

    const closedAt = Date.now();
    await t.close(idle);
    const after = (await byId()).get('idle-worker')!;
    expect(after.state).toBe('stopped');
    expect(after.stoppedAt!.getTime()).toBeGreaterThanOrEqual(closedAt);
  });
});
