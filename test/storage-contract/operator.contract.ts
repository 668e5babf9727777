/**
 * The storage contract of `OperatorStorage` (the dashboard's "run now", schedule controls and process list), on every
 * backend.
 */
import { FLOW_WAIT_OFFSET } from '../../lib/storage/shared/flow-wait';
import { SCHEDULE_PAUSE_OFFSET } from '../../lib/storage/shared/schedule-pause';
import { FAILURE_ERROR_HEAD } from '../../lib/storage/storage-records';
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, addJob, claimOne, contractStorage, newJob, newSchedule, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: operator', (backend) => {
  const s = contractStorage(backend);

  it('recentFailures: the newest failed jobs of the queue only, newest first, at most limit, each with its error head', async () => {
    const failAt = async (queue: string, message: string, finishedAt: number) => {
      await addJob(s.storage, queue, { maxAttempts: 1 });
      const job = await claimOne(s.storage, queue, 'w');
      expect(await s.storage.fail(ref(job), 'w', JSON.stringify({ name: 'Error', message, attempt: 1 }), finishedAt)).toBe(true);
      return job.id;
    };
    const base = Date.now();
    const oldest = await failAt('f', 'first', base + 1);
    const long = await failAt('f', 'x'.repeat(FAILURE_ERROR_HEAD * 2), base + 2);
    const newest = await failAt('f', 'third', base + 3);
    await failAt('other', 'elsewhere', base + 4);
    // A completed job of the same queue is no failure.
    await addJob(s.storage, 'f');
    const done = await claimOne(s.storage, 'f', 'w');
    await s.storage.completeMany([{ ref: ref(done), result: null }], 'w', base + 5);

    const rows = await s.storage.recentFailures('f', 10);
    expect(rows.map((row) => row.id)).toEqual([newest, long, oldest]);
    expect(rows.map((row) => row.finishedAt)).toEqual([base + 3, base + 2, base + 1]);
    expect(rows[0].errorHead).toContain('"message":"third"');
    // Only the head of a long error is read.
    expect(rows[1].errorHead).toHaveLength(FAILURE_ERROR_HEAD);
    expect((await s.storage.recentFailures('f', 2)).map((row) => row.id)).toEqual([newest, long]);
    expect(await s.storage.recentFailures('none', 10)).toEqual([]);
  });

  it('promote makes a delayed pending job due now, leaves due, finished and waiting jobs, and reports null for none', async () => {
    const delayed = await addJob(s.storage, 'q', { runAt: Date.now() + 3_600_000 });
    const due = await addJob(s.storage, 'q');
    const waiting = await addJob(s.storage, 'q', { runAt: Date.now() + FLOW_WAIT_OFFSET });
    // After the adds: the due job's run time (a ms before its add) is not later than this.
    const now = Date.now() + 1;
    expect(await s.storage.promote(delayed.id, now)).toEqual({ status: 'pending', runAt: now, promoted: true });
    expect(await s.storage.getJob(delayed.id)).toMatchObject({ status: 'pending', runAt: now });
    expect(await s.storage.promote(due.id, now)).toEqual({ status: 'pending', runAt: due.runAt, promoted: false });
    expect(await s.storage.promote(waiting.id, now)).toEqual({ status: 'pending', runAt: waiting.runAt, promoted: false });
    const running = await claimOne(s.storage, 'q', 'w');
    expect((await s.storage.promote(running.id, now))?.status).toBe('running');
    expect(await s.storage.promote('999999', now)).toBeNull();
    // The promoted job is claimed like any due one (at its run time at the earliest: `now` may be a ms ahead of the clock).
    const claimed = await s.storage.claim([{ queue: 'q', limit: 5 }], 'w', Math.max(Date.now(), now), CONTRACT_LEASE);
    expect(claimed.map((job) => job.id)).toContain(delayed.id);
  });

  it('pauseSchedule keeps the next run past any due read; resumeSchedule sets it; an upsert keeps it paused', async () => {
    await s.storage.upsertSchedule(newSchedule(), 1);
    expect(await s.storage.pauseSchedule('sched', 'tick', 2)).toBe(true);
    expect(await s.storage.pauseSchedule('sched', 'tick', 3)).toBe(true);
    expect(await s.storage.pauseSchedule('sched', 'nope', 3)).toBe(false);
    expect((await s.storage.listSchedules())[0].nextRunAt).toBe(5000 + SCHEDULE_PAUSE_OFFSET);
    expect(await s.storage.dueSchedules(Date.now() + 3_600_000)).toEqual([]);
    // The app declares it again with another definition: still paused, at the new definition's next run.
    await s.storage.upsertSchedule(newSchedule({ every: 2000, nextRunAt: 7000 }), 4);
    expect((await s.storage.listSchedules())[0].nextRunAt).toBe(7000 + SCHEDULE_PAUSE_OFFSET);
    expect(await s.storage.resumeSchedule('sched', 'tick', 9000, 5)).toBe(true);
    expect(await s.storage.resumeSchedule('sched', 'tick', 9500, 6)).toBe(false);
    expect(await s.storage.resumeSchedule('sched', 'nope', 9500, 6)).toBe(false);
    expect(await s.storage.dueSchedules(9000)).toEqual([newSchedule({ every: 2000, nextRunAt: 9000 })]);
  });

  it("lastScheduleRun is the newest job of that schedule's occurrences only", async () => {
    expect(await s.storage.lastScheduleRun('sched', 'tick')).toBeNull();
    await s.storage.upsertSchedule(newSchedule(), 1);
    await s.storage.upsertSchedule(newSchedule({ name: 'tick@x' }), 1);
    await s.storage.upsertSchedule(newSchedule({ name: 'tic' }), 1);
    // Enqueued as "run now" does: each leaves the schedule's next run where it was read, so each read holds.
    const occurrence = (name: string, at: number, data: string) => ({
      schedule: newSchedule({ name }),
      occurrenceAt: at,
      job: newJob({ data }),
      nextRunAt: newSchedule().nextRunAt,
    });
    expect(await s.storage.enqueueOccurrence(occurrence('tick', 5000, '{"n":1}'), 5001)).toBe(true);
    expect(await s.storage.enqueueOccurrence(occurrence('tick', 900, '{"n":2}'), 5002)).toBe(true);
    expect(await s.storage.enqueueOccurrence(occurrence('tick@x', 9000, '{"n":3}'), 5003)).toBe(true);
    expect(await s.storage.enqueueOccurrence(occurrence('tic', 9000, '{"n":4}'), 5004)).toBe(true);
    expect(await s.storage.lastScheduleRun('sched', 'tick')).toMatchObject({ data: '{"n":2}', queue: 'sched' });
    expect(await s.storage.lastScheduleRun('sched', 'tick@x')).toMatchObject({ data: '{"n":3}' });
    expect(await s.storage.lastScheduleRun('other', 'tick')).toBeNull();
  });

  it('enqueueScheduleRun inserts a run of an existing schedule with its id, leaves the schedule as it is, refuses a taken key', async () => {
    await s.storage.upsertSchedule(newSchedule({ nextRunAt: 9000 }), 1);
    const job = newJob({ data: '{"byHand":true}', group: 'g1', name: 'tick' });
    const id = await s.storage.enqueueScheduleRun('sched', 'tick', 'tick@5000000001', job, 5000);
    expect(id).toMatch(/^[1-9][0-9]*$/);
    expect(await s.storage.getJob(id!)).toMatchObject({ id, queue: 'sched', status: 'pending', data: '{"byHand":true}', group: 'g1' });
    expect(await s.storage.lastScheduleRun('sched', 'tick')).toMatchObject({ id });
    // Not an occurrence: the schedule's next run is where it was.
    expect((await s.storage.listSchedules())[0].nextRunAt).toBe(9000);
    // The same key again: nothing inserted. A schedule that does not exist: nothing inserted.
    expect(await s.storage.enqueueScheduleRun('sched', 'tick', 'tick@5000000001', job, 5001)).toBeNull();
    expect(await s.storage.enqueueScheduleRun('sched', 'nope', 'nope@5000000002', job, 5001)).toBeNull();
    const second = await s.storage.enqueueScheduleRun('sched', 'tick', 'tick@5000000003', job, 5002);
    expect(second).not.toBeNull();
    expect(Number(second)).toBeGreaterThan(Number(id));
    expect((await s.storage.listJobs('sched', { status: 'pending', limit: 10, offset: 0 })).map((row) => row.id).sort()).toEqual(
      [id, second].sort(),
    );
  });

  it('processorAnnouncements lists live announcements; runningByWorker groups running jobs by worker and queue', async () => {
    const now = Date.now();
    await s.storage.announceProcessors(['a', 'b'], now + 60_000, now);
    await s.storage.announceProcessors(['old'], now - 1, now - 10);
    expect(await s.storage.processorAnnouncements(now)).toEqual([
      { queue: 'a', until: now + 60_000 },
      { queue: 'b', until: now + 60_000 },
    ]);
    for (let i = 0; i < 3; i++) await addJob(s.storage, 'a');
    await addJob(s.storage, 'b');
    await claimOne(s.storage, 'a', 'w1');
    await claimOne(s.storage, 'a', 'w1');
    await claimOne(s.storage, 'b', 'w1');
    await claimOne(s.storage, 'a', 'w2');
    const rows = await s.storage.runningByWorker();
    expect(rows.map(({ lastSeen: _lastSeen, ...row }) => row)).toEqual([
      { workerId: 'w1', queue: 'a', running: 2 },
      { workerId: 'w1', queue: 'b', running: 1 },
      { workerId: 'w2', queue: 'a', running: 1 },
    ]);
    for (const row of rows) expect(row.lastSeen).toBeGreaterThanOrEqual(now - 1000);
  });

  it('announceProcess records one row per processor, renews it, and forgets what ended; endProcess marks a shutdown; processRows reads from a time on', async () => {
    const now = 1_000_000;
    const p1 = {
      workerId: 'p1',
      startedAt: now - 500,
      processors: [
        { queue: 'a', concurrency: 3 },
        { queue: 'b', concurrency: 1 },
      ],
    };
    await s.storage.announceProcess({ ...p1, until: now + 100 }, now, now - 3600);
    // A process that ended long ago: the next announcement of another process forgets it.
    await s.storage.announceProcess({ workerId: 'old', startedAt: 1, processors: [{ queue: 'a', concurrency: 1 }], until: 10 }, 5, 0);
    expect((await s.storage.processRows(0)).map((row) => row.workerId)).toEqual(['old', 'p1', 'p1']);
    await s.storage.announceProcess({ ...p1, until: now + 200 }, now + 50, 11);
    expect(await s.storage.processRows(0)).toEqual([
      { workerId: 'p1', queue: 'a', concurrency: 3, startedAt: now - 500, seenAt: now + 50, until: now + 200, stoppedAt: null },
      { workerId: 'p1', queue: 'b', concurrency: 1, startedAt: now - 500, seenAt: now + 50, until: now + 200, stoppedAt: null },
    ]);
    // Its own rows are never forgotten by its own beat, however far back `forgetBefore` reaches.
    await s.storage.announceProcess({ ...p1, until: now + 300 }, now + 60, now + 10_000);
    expect(await s.storage.processRows(0)).toHaveLength(2);

    // A restart under the same worker id with other processors: the new life replaces the old one's rows.
    const again = {
      workerId: 'p1',
      startedAt: now + 1000,
      processors: [
        { queue: 'b', concurrency: 5 },
        { queue: 'c', concurrency: 2 },
      ],
    };
    await s.storage.announceProcess({ ...again, until: now + 1100 }, now + 1000, 0);
    expect((await s.storage.processRows(0)).map((row) => [row.queue, row.concurrency, row.startedAt])).toEqual([
      ['b', 5, now + 1000],
      ['c', 2, now + 1000],
    ]);

    // A shutdown of an earlier life changes nothing; of this one, it ends the rows at its time.
    await s.storage.endProcess('p1', now - 500, now + 1050);
    expect((await s.storage.processRows(0)).every((row) => row.stoppedAt === null)).toBe(true);
    await s.storage.endProcess('p1', now + 1000, now + 1050);
    expect(await s.storage.processRows(0)).toEqual([
      expect.objectContaining({ queue: 'b', until: now + 1050, stoppedAt: now + 1050 }),
      expect.objectContaining({ queue: 'c', until: now + 1050, stoppedAt: now + 1050 }),
    ]);
    // processRows reads the rows whose announcement holds at `since` or later.
    expect(await s.storage.processRows(now + 1050)).toHaveLength(2);
    expect(await s.storage.processRows(now + 1051)).toEqual([]);
  });
});
