/**
 * The scheduler on fake timers with an in-memory schedule table that, like the SQL, enqueues each occurrence
 * once and advances the schedule: due schedules enqueue once, missed occurrences collapse, an occurrence due
 * between two ticks fires on time, a failing read is logged once and backs off.
 */
import { Logger } from '@nestjs/common';
import { Scheduler } from '../lib/scheduler/scheduler';
import { QueueStorage, ScheduleOccurrence, ScheduleRecord } from '../lib/storage/queue-storage.interface';

const PERIOD = 10_000;
const T0 = 1_000_000;

function schedule(name: string, every: number, nextRunAt: number): ScheduleRecord {
  return { queue: 'q', name, cron: null, every, timezone: null, data: '{}', options: '{"priority":3}', nextRunAt };
}

function setUp(schedules: ScheduleRecord[], period = PERIOD) {
  const enqueued: Array<{ name: string; occurrenceAt: number; nextRunAt: number; at: number; priority: number }> = [];
  const seen = new Set<string>();
  const storage = {
    dueSchedules: jest.fn(async (until: number) =>
      schedules.filter((record) => record.nextRunAt <= until).map((record) => ({ ...record })),
    ),
    enqueueOccurrence: jest.fn(async (occurrence: ScheduleOccurrence, now: number) => {
      const key = `${occurrence.schedule.name}@${occurrence.occurrenceAt}`;
      if (seen.has(key)) return false;
      seen.add(key);
      enqueued.push({
        name: occurrence.schedule.name,
        occurrenceAt: occurrence.occurrenceAt,
        nextRunAt: occurrence.nextRunAt,
        at: now,
        priority: occurrence.job.priority,
      });
      const record = schedules.find((candidate) => candidate.name === occurrence.schedule.name)!;
      if (record.nextRunAt === occurrence.occurrenceAt) record.nextRunAt = occurrence.nextRunAt;
      return true;
    }),
  };
  const logger = new Logger('test');
  const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  jest.spyOn(logger, 'log').mockImplementation(() => undefined);
  const scheduler = new Scheduler(storage as unknown as QueueStorage, period, () => 3, logger);
  return { scheduler, storage, enqueued, errors };
}

describe('Scheduler', () => {
  beforeEach(() => jest.useFakeTimers({ now: T0 }));
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('enqueues an overdue schedule once at start, for its oldest missed occurrence, then the first occurrence after now', async () => {
    const { scheduler, enqueued } = setUp([schedule('s', 60_000, T0 - 5 * 60_000 - 1)]);
    scheduler.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(enqueued).toEqual([{ name: 's', occurrenceAt: T0 - 5 * 60_000 - 1, nextRunAt: T0 + 60_000 - 1, at: T0, priority: 3 }]);
    await jest.advanceTimersByTimeAsync(3 * PERIOD);
    expect(enqueued).toHaveLength(1);
    await scheduler.stop();
  });

  it('fires an occurrence due between two ticks at its time, not at the next tick', async () => {
    const { scheduler, enqueued } = setUp([schedule('s', 3000, T0 + 3000)]);
    scheduler.start();
    await jest.advanceTimersByTimeAsync(30_000);
    expect(enqueued.map((entry) => entry.at - T0)).toEqual([3000, 6000, 9000, 12_000, 15_000, 18_000, 21_000, 24_000, 27_000, 30_000]);
    expect(enqueued.every((entry) => entry.at === entry.occurrenceAt)).toBe(true);
    await scheduler.stop();
  });

  it('reads once per period while nothing is due', async () => {
    const { scheduler, storage, enqueued } = setUp([schedule('s', 3_600_000, T0 + 3_600_000)]);
    scheduler.start();
    await jest.advanceTimersByTimeAsync(5 * PERIOD);
    expect(storage.dueSchedules).toHaveBeenCalledTimes(6);
    expect(storage.dueSchedules).toHaveBeenLastCalledWith(T0 + 5 * PERIOD + PERIOD);
    expect(enqueued).toHaveLength(0);
    await scheduler.stop();
    await jest.advanceTimersByTimeAsync(5 * PERIOD);
    expect(storage.dueSchedules).toHaveBeenCalledTimes(6);
  });

  it('logs a failing read once, backs off, and enqueues what is due once the database is back', async () => {
    const { scheduler, storage, enqueued, errors } = setUp([schedule('s', 3_600_000, T0 + 1000)], 500);
    for (let i = 0; i < 4; i++) storage.dueSchedules.mockRejectedValueOnce(new Error('down'));
    scheduler.start();
    // Tries at 0, 500 (the next period), 1000 and 2500 (pauses of 500 and 1500 ms), then 6000.
    await jest.advanceTimersByTimeAsync(5999);
    expect(storage.dueSchedules).toHaveBeenCalledTimes(4);
    expect(enqueued).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(storage.dueSchedules).toHaveBeenCalledTimes(5);
    expect(enqueued).toHaveLength(1);
    expect(errors.mock.calls.filter(([line]) => /Reading due schedules failed/.test(String(line)))).toHaveLength(1);
    await scheduler.stop();
  });

  it('a schedule that fails to enqueue is logged and retried next tick; the others go on', async () => {
    const { scheduler, storage, enqueued, errors } = setUp([schedule('bad', 3_600_000, T0), schedule('good', 3_600_000, T0)]);
    const real = storage.enqueueOccurrence.getMockImplementation()!;
    storage.enqueueOccurrence.mockImplementationOnce(async () => {
      throw new Error('refused');
    });
    scheduler.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(enqueued.map((entry) => entry.name)).toEqual(['good']);
    expect(errors.mock.calls.filter(([line]) => /schedule "bad" of queue q failed/.test(String(line)))).toHaveLength(1);
    storage.enqueueOccurrence.mockImplementation(real);
    await jest.advanceTimersByTimeAsync(PERIOD);
    expect(enqueued.map((entry) => entry.name)).toEqual(['good', 'bad']);
    await scheduler.stop();
  });
});
