import { join } from 'node:path';
import { Provider } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { JOBS_TABLE, Job, Processor, QueueAdmin, QueueProcessor, QueueProducer, SCHEDULES_TABLE, SqliteQueueModuleOptions } from '../lib';
import { ChildApp, readRunLog } from './support/child-app';
import { queryDatabase, startOpsApp } from './support/ops';
import { waitFor } from './support/wait-for';
import { describeEachBackend, itWhen, perTestApp, TestDatabase } from './support/backends';
import { CONTRACT_LEASE, contractStorage, newSchedule, occurrenceOf, ref } from './support/storage-contract';

/** Records every job it runs, whatever the queue. */
const ran: Job[] = [];

@Processor('cron-q')
class CronProcessor implements QueueProcessor {
  async process(job: Job): Promise<string> {
    ran.push(job);
    return job.id;
  }
}

@Processor('pulse-q', { schedules: [{ name: 'pulse', every: 1000, data: { beat: true } }] })
class PulseProcessor implements QueueProcessor {
  async process(job: Job): Promise<string> {
    ran.push(job);
    return job.id;
  }
}

@Processor('late')
class LateProcessor implements QueueProcessor {
  async process(job: Job): Promise<string> {
    ran.push(job);
    return job.id;
  }
}

interface OccurrenceRow {
  id: number;
  schedule_key: string | null;
  created_at: number;
}

/** The jobs of a queue with the occurrence (epoch ms) each was enqueued for and when it was enqueued, oldest first. */
async function occurrencesOf(
  database: TestDatabase,
  queue: string,
): Promise<{ id: string; name: string; at: number; createdAt: number }[]> {
  const rows = await queryDatabase<OccurrenceRow>(
    database,
    `SELECT id, schedule_key, created_at FROM ${JOBS_TABLE} WHERE queue = ? ORDER BY id`,
    [queue],
  );
  return rows.map((row) => {
    const [name, at] = String(row.schedule_key).split('@');
    return { id: String(row.id), name, at: Number(at), createdAt: Number(row.created_at) };
  });
}

describeEachBackend('recurring jobs (schedules)', (backend) => {
  let app: TestingModule | undefined;
  const children: ChildApp[] = [];

  beforeEach(() => {
    ran.length = 0;
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => child.kill()));
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend);

  async function startApp(
    providers: Provider[],
    options: SqliteQueueModuleOptions = {},
  ): Promise<{ admin: QueueAdmin; producer: QueueProducer }> {
    app = await current.startApp({ module: { pollInterval: 100, ...options }, providers });
    return { admin: app.get(QueueAdmin), producer: app.get(QueueProducer) };
  }

  itWhen(backend.kind === 'sqlite')(
    'an `every: 1000` schedule declared in three OS processes enqueues exactly one job per tick',
    async () => {
      const runLog = join(current.db.path, '..', 'run.log');
      for (let i = 0; i < 3; i++) {
        children.push(
          startOpsApp({
            connection: current.db.options,
            runLog,
            module: { pollInterval: 100 },
            queues: [
              { name: 'tick', options: { concurrency: 2, schedules: [{ name: 'heartbeat', every: 1000, data: { kind: 'tick' } }] } },
            ],
          }),
        );
      }
      await Promise.all(children.map((child) => child.printed('READY')));
      const start = Date.now();
      const { producer } = await startApp([], { processing: false });
      const [schedule] = await producer.listSchedules();
      expect(schedule).toMatchObject({ queue: 'tick', name: 'heartbeat', every: 1000, cron: null, timezone: null, data: { kind: 'tick' } });

      // Watch five ticks go by with all three processes up.
      const afterStart = async () => (await occurrencesOf(current.db, 'tick')).filter((job) => job.at > start);
      await waitFor(async () => (await afterStart()).length >= 5, 'five ticks after all three processes were up', 30_000);
      const end = Date.now();
      await Promise.all(children.map((child) => child.stop()));

      const jobs = await occurrencesOf(current.db, 'tick');
      const times = jobs.map((job) => job.at);
      expect(jobs.every((job) => job.name === 'heartbeat')).toBe(true);
      // No two jobs for one tick, and every tick on the one grid (no second schedule series from a racing boot).
      expect(new Set(times).size).toBe(times.length);
      expect(times.every((at) => (at - times[0]) % 1000 === 0)).toBe(true);
      // While all three ran: one job per tick, no tick skipped, none doubled.
      const watched = times.filter((at) => at > start).sort((a, b) => a - b);
      expect(watched.slice(1).map((at, i) => at - watched[i])).toEqual(watched.slice(1).map(() => 1000));
      const elapsedTicks = Math.floor((end - start) / 1000);
      expect(watched.filter((at) => at <= end).length).toBeGreaterThanOrEqual(elapsedTicks - 1);
      expect(watched.filter((at) => at <= end).length).toBeLessThanOrEqual(elapsedTicks + 1);
      // Each job ran once, somewhere.
      const runs = readRunLog(runLog).filter((entry) => entry.queue === 'tick');
      expect(new Set(runs.map((entry) => entry.id)).size).toBe(runs.length);
    },
  );

  it('upsertSchedule (cron) enqueues jobs with the schedule’s data and job options; removeSchedule stops it, and only it', async () => {
    const { admin, producer } = await startApp([CronProcessor, PulseProcessor]);
    const info = await producer.upsertSchedule('cron-q', 'each-second', {
      cron: '* * * * * *',
      data: { hello: 'world' },
      jobOptions: { maxAttempts: 5, priority: 3, group: 'tenant-7' },
    });
    expect(info).toMatchObject({
      queue: 'cron-q',
      name: 'each-second',
      cron: '* * * * * *',
      every: null,
      timezone: null,
      data: { hello: 'world' },
    });
    expect(info.nextRunAt).toBeInstanceOf(Date);
    expect((await producer.listSchedules()).map((schedule) => `${schedule.queue}/${schedule.name}`)).toEqual([
      'cron-q/each-second',
      'pulse-q/pulse',
    ]);

    const cronJobs = () => ran.filter((job) => job.queue === 'cron-q');
    const pulses = () => ran.filter((job) => job.queue === 'pulse-q').length;
    await waitFor(() => cronJobs().length >= 2, 'two occurrences ran', 15_000);
    for (const job of cronJobs()) {
      expect(job.data).toEqual({ hello: 'world' });
      expect(job).toMatchObject({ maxAttempts: 5, priority: 3, key: null, group: 'tenant-7' });
      // The handler has returned; its completion is written a moment later.
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', `job ${job.id} completed`);
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', maxAttempts: 5, priority: 3, group: 'tenant-7' });
    }
    expect(ran.filter((job) => job.queue === 'pulse-q').every((job) => (job.data as { beat: boolean }).beat)).toBe(true);

    expect(await producer.removeSchedule('cron-q', 'each-second')).toBe(true);
    expect(await producer.removeSchedule('cron-q', 'each-second')).toBe(false);
    expect((await producer.listSchedules()).map((schedule) => schedule.name)).toEqual(['pulse']);
    // A scheduler tick that had already read it may still enqueue one; after the next pulse tick, none.
    const pulsesAtRemoval = pulses();
    await waitFor(() => pulses() >= pulsesAtRemoval + 1, 'a pulse after the removal', 15_000);
    const settled = await admin.getCounts('cron-q');
    const total = settled.pending + settled.running + settled.claimed + settled.completed;
    await waitFor(() => pulses() >= pulsesAtRemoval + 3, 'two more pulses', 15_000);
    const later = await admin.getCounts('cron-q');
    expect(later.pending + later.running + later.claimed + later.completed).toBe(total);
  });

  it('re-upserting an unchanged schedule keeps its next run; a changed one is replaced; cron times follow the time zone', async () => {
    const { producer } = await startApp([], { processing: false });
    const first = await producer.upsertSchedule('reports', 'nightly', { every: 60_000, data: { v: 1 } });
    const again = await producer.upsertSchedule('reports', 'nightly', { every: 60_000, data: { v: 1 } });
    expect(again.nextRunAt.getTime()).toBe(first.nextRunAt.getTime());
    const changed = await producer.upsertSchedule('reports', 'nightly', { every: 3_600_000, data: { v: 2 } });
    expect(changed).toMatchObject({ every: 3_600_000, data: { v: 2 } });
    expect(changed.nextRunAt.getTime()).toBeGreaterThan(first.nextRunAt.getTime());
    expect(await producer.listSchedules()).toHaveLength(1);

    const tokyo = await producer.upsertSchedule('reports', 'tokyo-midnight', { cron: '0 0 * * *', timezone: 'Asia/Tokyo' });
    const newYork = await producer.upsertSchedule('reports', 'ny-midnight', { cron: '0 0 * * *', timezone: 'America/New_York' });
    const localTime = (date: Date, timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(date);
    expect(localTime(tokyo.nextRunAt, 'Asia/Tokyo')).toBe('00:00:00');
    expect(localTime(newYork.nextRunAt, 'America/New_York')).toBe('00:00:00');
    expect(tokyo.timezone).toBe('Asia/Tokyo');
    expect(tokyo.nextRunAt.getTime()).not.toBe(newYork.nextRunAt.getTime());
    for (const schedule of [tokyo, newYork]) {
      expect(schedule.nextRunAt.getTime()).toBeGreaterThan(Date.now());
      expect(schedule.nextRunAt.getTime()).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
    }
  });

  it('re-upserting a cron schedule whose time zone alone changed stores it: its next run follows the new zone', async () => {
    const { producer } = await startApp([], { processing: false });
    const localTime = (date: Date, timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(date);
    const tokyo = await producer.upsertSchedule('reports', 'midnight', { cron: '0 0 * * *', timezone: 'Asia/Tokyo' });
    expect(localTime(tokyo.nextRunAt, 'Asia/Tokyo')).toBe('00:00:00');
    const moved = await producer.upsertSchedule('reports', 'midnight', { cron: '0 0 * * *', timezone: 'America/New_York' });
    expect(moved.timezone).toBe('America/New_York');
    expect(localTime(moved.nextRunAt, 'America/New_York')).toBe('00:00:00');
    expect(moved.nextRunAt.getTime()).not.toBe(tokyo.nextRunAt.getTime());
    expect(await producer.listSchedules()).toEqual([expect.objectContaining({ name: 'midnight', timezone: 'America/New_York' })]);
  });

  it('re-upserting a schedule whose jobOptions alone changed stores them: its next occurrence is a job of the new options', async () => {
    const { producer, admin } = await startApp([], { processing: false });
    await producer.upsertSchedule('reports', 'weekly', { every: 3_600_000, data: { v: 1 }, jobOptions: { priority: 1, maxAttempts: 2 } });
    await producer.upsertSchedule('reports', 'weekly', { every: 3_600_000, data: { v: 1 }, jobOptions: { priority: 5, maxAttempts: 4 } });
    // "Run now" makes the job an occurrence makes, from the stored schedule.
    const id = await admin.runScheduleNow('reports', 'weekly');
    expect(await admin.getJob(id)).toMatchObject({ name: 'weekly', data: { v: 1 }, priority: 5, maxAttempts: 4 });
  });

  itWhen(backend.kind === 'sqlite')(
    "an occurrence's job stores every job option of its schedule as add() stores the same options (timeout and backoff too)",
    async () => {
      const { producer, admin } = await startApp([], { processing: false });
      const jobOptions = { priority: 2, maxAttempts: 6, timeout: 45_000, backoff: { type: 'fixed' as const, delay: 700 }, group: 'g-1' };
      await producer.upsertSchedule('options-q', 'hourly', { every: 3_600_000, data: { v: 1 }, jobOptions });
      const occurrence = await admin.runScheduleNow('options-q', 'hourly');
      const added = await producer.add('options-q', { v: 1 }, { ...jobOptions, name: 'hourly' });
      const columns = 'name, priority, max_attempts, timeout_ms, backoff, job_group, remove_on';
      const rows = await queryDatabase(current.db, `SELECT ${columns} FROM ${JOBS_TABLE} WHERE id IN (?, ?) ORDER BY id`, [
        Number(occurrence),
        Number(added.id),
      ]);
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({ timeout_ms: 45_000, max_attempts: 6, priority: 2 });
      expect(rows[0]).toEqual(rows[1]);
    },
  );

  itWhen(backend.kind === 'sqlite').each([
    ['every: 1000', { every: 1000 }, 10_500],
    ['cron each second', { cron: '* * * * * *' }, 3_600_000],
  ])(
    'after downtime (%s), enqueues ONE missed occurrence, then continues from the next one after now',
    async (_case, options, missedBy) => {
      // Create the schedule, then shut down and pretend the processes stayed down while many occurrences passed.
      const { producer } = await startApp([], { processing: false });
      await producer.upsertSchedule('late', 'catchup', options);
      await current.close(app!);
      const missed = Math.floor((Date.now() - missedBy) / 1000) * 1000;
      await queryDatabase(current.db, `UPDATE ${SCHEDULES_TABLE} SET next_run_at = ? WHERE name = 'catchup'`, [missed]);

      const restartedAt = Date.now();
      const { producer: restarted } = await startApp([LateProcessor]);
      await waitFor(() => ran.length >= 2, 'the missed occurrence and the next one ran', 15_000);
      const [next] = await restarted.listSchedules();
      expect(next.nextRunAt.getTime()).toBeGreaterThan(restartedAt);
      expect(next.nextRunAt.getTime() % 1000).toBe(0);
      // Judged on what was enqueued, not on when the test looks: the next occurrence follows the catch-up within a
      // second, so a look "right after the missed one ran" may already see it (and, under load, often does).
      const jobs = await occurrencesOf(current.db, 'late');
      const [caughtUp, following] = jobs;
      expect(caughtUp).toEqual({ id: ran[0].id, name: 'catchup', at: missed, createdAt: expect.any(Number) });
      // ONE missed occurrence: of all those that fell in the downtime, only the oldest was enqueued.
      expect(jobs.filter((job) => job.at < restartedAt)).toEqual([caughtUp]);
      // Then the first occurrence after the catch-up (the tick that enqueued it, at its created_at), none between.
      expect(following.at).toBe(Math.floor(caughtUp.createdAt / 1000) * 1000 + 1000);
      expect(ran.map((job) => job.id)).toEqual(expect.arrayContaining([caughtUp.id, following.id]));
    },
  );
});

/**
 * The race under two processes, forced on each backend's storage: a scheduler reads a due schedule and is held (a busy
 * machine) while another process enqueues that occurrence, advances the schedule, runs the job and removes it
 * (`removeOnComplete`, retention). The held writer must then enqueue nothing: the unique schedule key no longer
 * stands in its way, only the schedule's next run, which moved on.
 */
describeEachBackend('schedule occurrences: the writer holding a stale read', (backend) => {
  const contract = contractStorage(backend);
  const schedule = newSchedule();

  it('enqueues nothing once the occurrence it read was enqueued elsewhere, ran and was removed', async () => {
    const { storage } = contract;
    await storage.upsertSchedule(schedule, 1);
    const [held] = await storage.dueSchedules(5000);
    const [other] = await storage.dueSchedules(5000);
    expect(await storage.enqueueOccurrence(occurrenceOf(other), 5001)).toBe(true);
    const [job] = await storage.claim([{ queue: 'sched', limit: 1 }], 'w', Date.now(), CONTRACT_LEASE);
    expect((await storage.completeMany([{ ref: ref(job), result: null }], 'w', Date.now())).has(job.id)).toBe(true);
    expect(await storage.applyRetention('sched', 'completed', { maxCount: 0 }, 10)).toBe(1);

    expect(await storage.enqueueOccurrence(occurrenceOf(held), 6002)).toBe(false);
    expect(await storage.getCounts('sched')).toEqual([]);
    expect(await storage.listSchedules()).toEqual([{ ...schedule, nextRunAt: 6000 }]);
    // The next occurrence, read afresh, is enqueued as usual.
    const [fresh] = await storage.dueSchedules(6000);
    expect(await storage.enqueueOccurrence(occurrenceOf(fresh), 6003)).toBe(true);
    expect(await storage.getCounts('sched')).toEqual([{ queue: 'sched', status: 'pending', count: 1 }]);
  });

  it('a process declaring the same schedule after another one advanced it leaves it on the first grid', async () => {
    const { storage } = contract;
    // Two processes boot and both find no schedule. The first declares it (first run 5000) and its scheduler
    // enqueues that occurrence.
    await storage.upsertSchedule(schedule, 1);
    const [read] = await storage.dueSchedules(5000);
    expect(await storage.enqueueOccurrence(occurrenceOf(read), 5001)).toBe(true);
    // The second, a moment later, declares the same definition with its own first run.
    await storage.upsertSchedule({ ...schedule, nextRunAt: 5400 }, 5002);
    expect(await storage.listSchedules()).toEqual([{ ...schedule, nextRunAt: 6000 }]);
    expect(await storage.dueSchedules(5999)).toEqual([]);
    // A changed definition still replaces it.
    await storage.upsertSchedule({ ...schedule, every: 2000, nextRunAt: 7000 }, 5003);
    expect(await storage.listSchedules()).toEqual([{ ...schedule, every: 2000, nextRunAt: 7000 }]);
  });
});
