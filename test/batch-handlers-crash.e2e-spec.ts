/**
 * A batch processor's process killed with SIGKILL in the middle of a batch: every job of the batch stays `running`
 * under its own lease, which nobody renews; a new process takes each back when it expires, and none is lost.
 */
import { readRunLog } from './support/child-app';
import { waitFor } from './support/wait-for';
import { describeEachBackend } from './support/backends';
import { shortLeases } from './support/test-timings';
import { crashWorkers } from './support/crash-workers';

describeEachBackend('batch handlers under kill -9', (backend) => {
  const { current, openObserver, startWorker } = crashWorkers(backend);

  it('kill -9 while a batch of 10 runs: each of its jobs is recovered after its lease and completes, none lost', async () => {
    const runLog = `${current.db.path}.runs`;
    const { producer, admin } = await openObserver();
    // The first ten (one batch) hang on their first attempt; the other fifteen wait for the slots they hold.
    const hanging = await producer.addBulk(
      'batch',
      Array.from({ length: 10 }, (_, n) => ({ data: { n, hangFirstAttempt: true } })),
    );
    const rest = await producer.addBulk(
      'batch',
      Array.from({ length: 15 }, (_, n) => ({ data: { n: 10 + n } })),
    );
    const config = { runLog, module: shortLeases(backend), queues: [{ name: 'batch', batch: { size: 10, maxWaitMs: 50 } }] };
    const first = startWorker(config);
    await waitFor(() => readRunLog(runLog).length === 10, 'the first batch called', 60_000);
    const called = readRunLog(runLog).map((run) => run.id);
    expect(called.sort()).toEqual(hanging.map((job) => job.id).sort());
    // A handler's start reaches the database with the worker's next round of writes, a few ms after the call: until
    // then the job reads as claimed. Killed once all ten read as running, so the kill hits jobs the database knows run.
    await waitFor(async () => (await admin.getCounts('batch')).running === 10, 'the batch recorded as running');
    expect(await first.kill()).toBe('SIGKILL');
    const atKill = await admin.getCounts('batch');
    expect(atKill).toMatchObject({ running: 10, pending: 15, completed: 0 });

    const second = startWorker(config);
    await waitFor(async () => (await admin.getCounts('batch')).completed === 25, 'all 25 jobs completed', 60_000);
    for (const job of hanging) {
      // The killed run counts as an attempt: each job ran again on its own, as the lease expired.
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', result: job.data.n, attempts: 2 });
    }
    for (const job of rest) expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(await second.stop()).toBe(0);
  });
});
