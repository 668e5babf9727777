/**
 * The storage contract of a sorted listing (`ListJobsQuery.sort`, `QueueAdmin.getJobs({ orderBy, order })`), on every
 * backend: every order in both directions, with every filter (status, name, group, search) and their combinations,
 * is the order the rule of `shared/job-sort.ts` states (ties by id, jobs without the field last, priority as the
 * claim takes it), page after page without overlap; and the admin's options are checked with a "did you mean".
 */
import { InvalidArgumentError, JOB_ORDER_FIELDS, JobOrderBy, QueueAdmin, QueueProducer } from '../../lib';
import { JobRecord, ListJobsQuery } from '../../lib/storage/queue-storage.interface';
import { JobSort } from '../../lib/storage/shared/job-sort';
import { MIGRATED, describeEachBackend, perTestApp } from '../support/backends';
import { errorOf } from '../support/ops';
import { CONTRACT_LEASE, contractStorage, newJob, ref } from '../support/storage-contract';

/** A record's value for an order (null: the job has none, listed last). */
function valueOf(job: JobRecord, by: JobOrderBy): number | string | null {
  switch (by) {
    case 'id':
      return Number(job.id);
    case 'createdAt':
      return job.createdAt;
    case 'runAt':
      return job.runAt;
    case 'finishedAt':
      return job.finishedAt;
    case 'priority':
      return job.priority;
    case 'attempts':
      return job.attempts;
    case 'name':
      return job.name ?? null;
  }
}

/** The order the contract states, written out in JavaScript (names compared by code point, as both backends do). */
function expectedOrder(jobs: JobRecord[], sort: JobSort): string[] {
  const sign = sort.descending ? -1 : 1;
  const cmp = (x: number | string, y: number | string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...jobs]
    .sort((a, b) => {
      const x = valueOf(a, sort.by);
      const y = valueOf(b, sort.by);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (cmp(x, y) !== 0) return sign * cmp(x, y);
      // Priority's ties go by run time and id as the claim takes them: oldest first when descending.
      const tie = sort.by === 'priority' ? -sign : sign;
      if (sort.by === 'priority' && a.runAt !== b.runAt) return tie * cmp(a.runAt, b.runAt);
      return tie * cmp(Number(a.id), Number(b.id));
    })
    .map((job) => job.id);
}

describeEachBackend('Storage contract: sorted listings', (backend) => {
  const s = contractStorage(backend);

  /**
   * Queue `q`: pending jobs (due and delayed, one retried), running ones, completed ones (two in one batch: a tie of
   * finish time), a failed and a cancelled one; priorities, run times and names (some none) mixed; half of them in
   * group `g1`; every other one's data holding "even". Queue `other` holds jobs of the same shape, never listed.
   */
  async function fill(): Promise<JobRecord[]> {
    const now = Date.now();
    const names = ['b', 'a', 'c', null, 'a', 'B'];
    const jobs = Array.from({ length: 16 }, (_, i) =>
      newJob({
        priority: [0, 5, 1][i % 3],
        // Two share a run time, so priority's tie by run time then by id is exercised; the last two are delayed.
        runAt: i >= 14 ? now + 3_600_000 : now - 10_000 + (i === 3 ? 6 : i) * 10,
        name: names[i % names.length],
        group: i % 2 ? 'g1' : undefined,
        data: JSON.stringify({ i, tag: i % 2 ? 'odd' : 'even' }),
      }),
    );
    await s.storage.enqueue('q', jobs, now);
    await s.storage.enqueue('other', jobs.slice(0, 4), now);
    const claimed = await s.storage.claim([{ queue: 'q', limit: 7 }], 'w', now, CONTRACT_LEASE);
    expect(claimed).toHaveLength(7);
    await s.storage.completeMany(
      [
        { ref: ref(claimed[0]), result: null },
        { ref: ref(claimed[1]), result: null },
      ],
      'w',
      now + 5,
    );
    await s.storage.completeMany([{ ref: ref(claimed[2]), result: null }], 'w', now + 2);
    expect(await s.storage.fail(ref(claimed[3]), 'w', '{"name":"Error","message":"worse"}', now + 3)).toBe(true);
    expect(await s.storage.retry(ref(claimed[4]), 'w', '{"name":"Error","message":"again"}', now - 1, now + 4)).toBe(true);
    const pending = (await s.storage.listJobs('q', { status: 'pending', limit: 100, offset: 0 })).filter((job) => job.attempts === 0);
    expect(await s.storage.cancel(pending[0].id, now + 6)).toBe('pending');
    return s.storage.listJobs('q', { limit: 1000, offset: 0 });
  }

  /** The listing of `query` in `sort`, read three jobs a page until a short page. */
  async function pages(query: Omit<ListJobsQuery, 'limit' | 'offset' | 'sort'>, sort: JobSort): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ; offset += 3) {
      const page = await s.storage.listJobs('q', { ...query, sort, limit: 3, offset });
      ids.push(...page.map((job) => job.id));
      if (page.length < 3) return ids;
    }
  }

  it('every order, both ways, with every filter and their combinations, page after page', async () => {
    const all = await fill();
    const statuses = new Set(all.map((job) => job.status));
    expect([...statuses].sort()).toEqual(['cancelled', 'completed', 'failed', 'pending', 'running']);
    const filters: Omit<ListJobsQuery, 'limit' | 'offset' | 'sort'>[] = [
      {},
      { status: 'pending' },
      { status: 'running' },
      { status: 'completed' },
      { status: 'failed' },
      { name: 'a' },
      { group: 'g1' },
      { status: 'pending', group: 'g1' },
      { status: 'completed', name: 'b' },
      { status: 'running', group: 'g1', name: 'a' },
      { search: 'even' },
      { search: 'even', status: 'pending', group: undefined },
      { search: 'odd', group: 'g1', name: 'a' },
    ];
    const holds = (job: JobRecord, filter: (typeof filters)[number]) =>
      (filter.status === undefined || job.status === filter.status) &&
      (filter.name === undefined || job.name === filter.name) &&
      (filter.group === undefined || job.group === filter.group) &&
      (filter.search === undefined || job.data.includes(filter.search));
    for (const filter of filters) {
      const matching = all.filter((job) => holds(job, filter));
      for (const by of JOB_ORDER_FIELDS) {
        for (const descending of [true, false]) {
          const sort = { by, descending };
          expect({ filter, sort, ids: await pages(filter, sort) }).toEqual({ filter, sort, ids: expectedOrder(matching, sort) });
        }
      }
    }
  });
});

describeEachBackend('QueueAdmin.getJobs: orderBy and order', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('orders as asked, and refuses an unknown field or direction with the closest one, reading nothing', async () => {
    const app = await current.startApp();
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const low = await producer.add('sorted', { n: 1 }, { priority: 1, name: 'zeta' });
    const high = await producer.add('sorted', { n: 2 }, { priority: 9, name: 'alpha' });
    const none = await producer.add('sorted', { n: 3 });
    const ids = async (options: Parameters<QueueAdmin['getJobs']>[1]) => (await admin.getJobs('sorted', options)).map((job) => job.id);
    expect(await ids({})).toEqual([none.id, high.id, low.id]);
    expect(await ids({ orderBy: 'id', order: 'asc' })).toEqual([low.id, high.id, none.id]);
    expect(await ids({ status: 'pending', orderBy: 'priority' })).toEqual([high.id, low.id, none.id]);
    expect(await ids({ orderBy: 'name', order: 'asc' })).toEqual([high.id, low.id, none.id]);
    expect(await ids({ orderBy: 'name', order: 'desc' })).toEqual([low.id, high.id, none.id]);
    expect(await ids({ orderBy: 'createdAt', order: 'asc', limit: 1, offset: 1 })).toEqual([high.id]);

    const cases: [Parameters<QueueAdmin['getJobs']>[1], string][] = [
      [
        { orderBy: 'created' as JobOrderBy },
        'orderBy must be one of id, createdAt, runAt, finishedAt, priority, attempts, name (did you mean "createdAt"?), got "created"',
      ],
      [{ orderBy: 'finished_at' as JobOrderBy }, '(did you mean "finishedAt"?)'],
      [{ orderBy: 3 as unknown as JobOrderBy }, 'got 3'],
      [{ order: 'DESC' as 'desc' }, `must be 'asc' or 'desc' (did you mean "desc"?), got "DESC"`],
      [{ order: 'ascending' as 'asc' }, '(did you mean "asc"?)'],
    ];
    for (const [options, message] of cases) {
      const error = await errorOf(() => admin.getJobs('sorted', options));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error.message).toContain('QueueAdmin.getJobs()');
      expect(error.message).toContain(message);
    }
  });
});
