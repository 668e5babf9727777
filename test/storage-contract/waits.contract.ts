/** The storage contract of `WaitStorage` (waiting for jobs to finish, from any process), on every backend. */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { describeEachBackend } from '../support/backends';
import { addJob, claimOne, contractStorage, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: waits', (backend) => {
  const s = contractStorage(backend);

  it('getWaitedJobs returns the finished ones and the ids no job has, leaves live jobs and non-ids out', async () => {
    const live = await addJob(s.storage, 'q');
    const done = await addJob(s.storage, 'q');
    const removed = await addJob(s.storage, 'q');
    expect(await s.storage.remove(removed.id, Date.now())).toBe('pending');
    expect(await s.storage.cancel(done.id, Date.now())).toBe('pending');
    const waited = await s.storage.getWaitedJobs([live.id, done.id, removed.id, 'not-an-id']);
    expect(waited.finished.map((job) => [job.id, job.status])).toEqual([[done.id, 'cancelled']]);
    expect(waited.gone).toEqual([removed.id]);
    expect(await s.storage.getWaitedJobs([])).toEqual({ finished: [], gone: [] });
  });

  it('finishHints$ and markFinishWaiters: PostgreSQL announces finished ids while waiters are marked; SQLite only marks them', async () => {
    if (backend.kind === 'sqlite') {
      expect(s.storage.finishHints$).toBeUndefined();
      await s.storage.markFinishWaiters!(Date.now());
      return;
    }
    await s.storage.markFinishWaiters!(Date.now());
    await addJob(s.storage, 'q');
    const job = await claimOne(s.storage, 'q', 'w');
    const hint = firstValueFrom(
      s.storage.finishHints$!.pipe(
        filter((ids) => ids === null || ids.includes(job.id)),
        timeout(10_000),
      ),
    );
    await s.storage.completeMany([{ ref: ref(job), result: null }], 'w', Date.now());
    expect(await hint).toEqual([job.id]);
  });
});
