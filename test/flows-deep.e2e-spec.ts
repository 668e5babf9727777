/**
 * A flow may be as deep as it has jobs (MAX_FLOW_JOBS): a failure propagates up a chain of any depth in the statement
 * that records it, without nesting one trigger call per level (SQLite stops at 1,000 levels, PostgreSQL at its stack
 * depth). Before, the failing leaf's outcome, then its lease recovery, failed on "too many levels of trigger recursion"
 * (PostgreSQL: "stack depth limit exceeded"), and as recovery is one statement over every expired row, no lease of any
 * queue was recovered again: jobs held by a process killed afterwards stayed running for ever.
 */
import { FlowJob, QueueAdmin, QueueProducer } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { readRunLog, startChildApp } from './support/child-app';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { SHORT_LEASE, shortLeases } from './support/test-timings';
import { waitFor } from './support/wait-for';

/** Deeper than SQLite's trigger recursion limit (SQLITE_MAX_TRIGGER_DEPTH, 1,000). */
const DEPTH = 1_100;

/** A chain of `depth` jobs of queue 'chain' whose last node, of queue 'leaf', has no child. */
function chain(depth: number): FlowJob {
  let node: FlowJob = { queue: 'leaf', data: { n: depth - 1 }, options: { maxAttempts: 1 } };
  for (let n = depth - 2; n >= 0; n--) node = { queue: 'chain', data: { n }, children: [node] };
  return node;
}

describeEachBackend('a deep flow whose leaf fails', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it(`fails all ${DEPTH} ancestors, and jobs of another queue held by a process killed -9 afterwards are still recovered`, async () => {
    const runLog = `${current.db.path}.runs`;
    // The other process's lease is longer than ours: its jobs expire after the leaf's lease would, so the recovery
    // pass that finds them also finds the leaf if its failure could not be recorded. Both are short (test-timings.ts).
    const other = startChildApp({
      connection: current.db.options,
      runLog,
      module: { ...shortLeases(backend), leaseDuration: SHORT_LEASE + 1000 },
      queues: [{ name: 'other', concurrency: 5 }],
    });
    await other.printed('READY');
    let leafRuns = 0;
    current.app = await current.startApp({
      module: shortLeases(backend),
      providers: [
        defineProcessor('leaf', () => {
          leafRuns++;
          return Promise.reject(new Error('leaf failed'));
        }),
      ],
    });
    const producer = current.app.get(QueueProducer);
    const admin = current.app.get(QueueAdmin);
    const held = await producer.addBulk(
      'other',
      Array.from({ length: 5 }, () => ({ data: { hang: true } })),
    );
    await waitFor(() => readRunLog(runLog).filter((run) => run.queue === 'other').length === 5, 'the other process runs its 5 jobs');

    const root = await producer.addFlow(chain(DEPTH));
    await waitFor(() => leafRuns === 1, 'the leaf ran');
    await other.kill();

    await waitFor(
      async () =>
        (await Promise.all(held.map(async (job) => (await admin.getJob(job.id))!.status))).every((status) => status === 'pending'),
      "the killed process's jobs are recovered",
      20_000,
      50,
    );
    const [listed] = await admin.getJobs('leaf', { status: 'failed' });
    const leaf = await admin.getJob(listed.id);
    expect(leaf?.error?.message).toBe('leaf failed');
    expect(await admin.getCounts('chain')).toEqual({ pending: 0, running: 0, completed: 0, failed: DEPTH - 1, cancelled: 0, claimed: 0 });
    const top = await admin.getJob(root.id);
    expect(top?.error).toMatchObject({ name: 'ChildFailedError' });
    expect(top?.error?.message).toContain(`Child job ${top!.flow!.childrenIds[0]} (queue chain) ended failed`);
    const leafParent = await admin.getJob(leaf!.flow!.parentId!);
    expect(leafParent?.error?.message).toContain(`Child job ${leaf!.id} (queue leaf) ended failed`);
  }, 60_000);
});
