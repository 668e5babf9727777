/**
 * The memory of jobs this process completed with a completion that deletes their row: bounded by count, text and
 * age, and never read before (or unless) the deleting completion landed.
 */
import { RecentCompletions } from '../lib/events/recent-completions';
import { JobRecord } from '../lib/storage/queue-storage.interface';
import { runningRecord } from './support/job-record';

function running(id: string, data = '{}'): JobRecord {
  return runningRecord({ id, data, leaseUntil: 99 }, 1);
}

describe('RecentCompletions', () => {
  let now = 1_000;
  const clock = () => now;
  beforeEach(() => (now = 1_000));

  it('reads a landed deleting completion as the completed record, with its result and finish time', async () => {
    const recent = new RecentCompletions(clock);
    recent.remember(running('1'), '"r"', Promise.resolve(true));
    await expect(recent.completed('1')).resolves.toEqual({
      ...running('1'),
      status: 'completed',
      result: '"r"',
      lockedBy: null,
      leaseUntil: null,
      finishedAt: 1_000,
      updatedAt: 1_000,
    });
    await expect(recent.completed('2')).resolves.toBeNull();
  });

  it('answers only once the completion settles, and nothing when it did not land (the attempt was lost)', async () => {
    const recent = new RecentCompletions(clock);
    let land!: (landed: boolean) => void;
    recent.remember(running('1'), null, new Promise((resolve) => (land = resolve)));
    let answered: JobRecord | null | undefined;
    const answer = recent.completed('1').then((record) => (answered = record));
    await Promise.resolve();
    expect(answered).toBeUndefined();
    land(false);
    await answer;
    expect(answered).toBeNull();
  });

  it('forgets a job after its keeping time', async () => {
    const recent = new RecentCompletions(clock, 10, 1_000, 500);
    recent.remember(running('1'), null, Promise.resolve(true));
    now += 500;
    await expect(recent.completed('1')).resolves.not.toBeNull();
    now += 1;
    await expect(recent.completed('1')).resolves.toBeNull();
  });

  it('keeps at most its count of jobs, dropping the oldest', async () => {
    const recent = new RecentCompletions(clock, 2, 1_000, 500);
    for (const id of ['1', '2', '3']) recent.remember(running(id), null, Promise.resolve(true));
    await expect(recent.completed('1')).resolves.toBeNull();
    await expect(recent.completed('2')).resolves.not.toBeNull();
    await expect(recent.completed('3')).resolves.not.toBeNull();
  });

  it('keeps at most its text (data and result), dropping the oldest, and never one job larger than all of it', async () => {
    const recent = new RecentCompletions(clock, 10, 10, 500);
    recent.remember(running('1', 'aaaa'), 'bb', Promise.resolve(true)); // 6
    recent.remember(running('2', 'cccc'), null, Promise.resolve(true)); // 4: 10 in all
    await expect(recent.completed('1')).resolves.not.toBeNull();
    recent.remember(running('3', 'd'), null, Promise.resolve(true)); // 11: the oldest goes
    await expect(recent.completed('1')).resolves.toBeNull();
    await expect(recent.completed('2')).resolves.not.toBeNull();
    recent.remember(running('4', 'x'.repeat(11)), null, Promise.resolve(true));
    await expect(recent.completed('4')).resolves.toBeNull();
    await expect(recent.completed('3')).resolves.not.toBeNull();
  });

  it('a job remembered again counts once, with its newest completion', async () => {
    const recent = new RecentCompletions(clock, 2, 1_000, 500);
    recent.remember(running('1'), '"old"', Promise.resolve(true));
    recent.remember(running('1'), '"new"', Promise.resolve(true));
    recent.remember(running('2'), null, Promise.resolve(true));
    await expect(recent.completed('1')).resolves.toMatchObject({ result: '"new"' });
  });
});
