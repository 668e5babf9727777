/**
 * `groupFailures`, the grouping behind `QueueAdmin.getFailureGroups`, on rows as the storage reads them (newest
 * first): most failures first, and among groups of as many failures, the one that failed last first. The storage's
 * read and the dashboard panel are proven on every backend in dashboard-failures.e2e-spec.ts.
 */
import { groupFailures } from '../lib/admin/failure-groups';
import { FailureRow } from '../lib/storage/queue-storage.interface';

const error = (message: string) => JSON.stringify({ name: 'Error', message });

describe('groupFailures', () => {
  it('orders groups by count, then newest failure first, each naming its newest job', () => {
    const rows: FailureRow[] = [
      { id: '6', finishedAt: 6_000, errorHead: error('timeout') },
      { id: '5', finishedAt: 5_000, errorHead: error('declined') },
      { id: '4', finishedAt: 4_000, errorHead: error('expired') },
      { id: '3', finishedAt: 3_000, errorHead: error('declined') },
      { id: '2', finishedAt: 2_000, errorHead: error('refused') },
      { id: '1', finishedAt: 1_000, errorHead: error('timeout') },
    ];
    expect(groupFailures(rows, 10).map((group) => [group.message, group.count, group.lastFailedAt.getTime(), group.sampleJobId])).toEqual([
      ['timeout', 2, 6_000, '6'],
      ['declined', 2, 5_000, '5'],
      ['expired', 1, 4_000, '4'],
      ['refused', 1, 2_000, '2'],
    ]);
    expect(groupFailures(rows, 3).map((group) => group.message)).toEqual(['timeout', 'declined', 'expired']);
  });
});
