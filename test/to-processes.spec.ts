/**
 * `listProcesses()`' views of the processes table and the running jobs, from rows as the storage reads them: the
 * e2e spec (operator-admin) has one queue per worker, so it cannot tell a worker's latest write from its last row's.
 */
import { toProcesses, toWorkers } from '../lib/admin/to-processes';

describe('toWorkers', () => {
  it("gives a worker running jobs of several queues its latest write of all, whatever the rows' order", () => {
    // The storage reads the rows by worker and queue: here the queue read last is the one written to longest ago.
    const workers = toWorkers([
      { workerId: 'w1', queue: 'alpha', running: 2, lastSeen: 5000 },
      { workerId: 'w1', queue: 'beta', running: 1, lastSeen: 3000 },
      { workerId: 'w2', queue: 'alpha', running: 1, lastSeen: 1000 },
    ]);
    expect(workers).toEqual([
      {
        workerId: 'w1',
        queues: [
          { queue: 'alpha', running: 2 },
          { queue: 'beta', running: 1 },
        ],
        lastSeen: new Date(5000),
      },
      { workerId: 'w2', queues: [{ queue: 'alpha', running: 1 }], lastSeen: new Date(1000) },
    ]);
  });
});

describe('toProcesses', () => {
  it('reads a life live until its announcement lapses, lost after, stopped once it said so', () => {
    const row = { concurrency: 1, startedAt: 100, seenAt: 900, stoppedAt: null as number | null };
    const processes = toProcesses(
      [
        { ...row, workerId: 'a', queue: 'q', until: 2001 },
        { ...row, workerId: 'b', queue: 'q', until: 2000 },
        { ...row, workerId: 'c', queue: 'q', until: 1000, stoppedAt: 1000 },
      ],
      [{ workerId: 'a', queue: 'q', running: 1, lastSeen: 950 }],
      2000,
    );
    expect(processes.map((p) => [p.workerId, p.state, p.processors[0].running])).toEqual([
      ['a', 'live', 1],
      ['b', 'lost', 0],
      ['c', 'stopped', 0],
    ]);
  });
});
