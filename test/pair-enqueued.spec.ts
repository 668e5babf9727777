/**
 * Pairing an enqueue's inputs with the rows its insert made (both backends share it): an input whose key was taken
 * gets the live job holding it; one whose holder finished between the insert and the read takes the freed key over
 * with another insert, a bounded number of times. On a stand-in backend, so each interleaving is exact.
 */
import { JobKeyConflictError } from '../lib/errors/job-key-conflict.error';
import { PairingBackend, pairEnqueued } from '../lib/storage/shared/pair-enqueued';
import { JobRecord, NewJobRecord } from '../lib/storage/queue-storage.interface';
import { newJobRecord } from '../lib/storage/shared/job-row.mapper';

const job = (key: string | null, data = '{}'): NewJobRecord => ({
  data,
  priority: 0,
  runAt: 0,
  maxAttempts: 1,
  backoff: null,
  timeout: null,
  key,
});

/** A backend whose inserts answer `inserts` in turn and whose key lookups answer `live`. */
function backendOf(inserts: { id: string; key: string | null }[][], live: JobRecord[] = []) {
  const calls = { inserts: [] as NewJobRecord[][], lookups: [] as string[][] };
  const backend: PairingBackend = {
    findByKeys: async (_queue, keys) => {
      calls.lookups.push(keys);
      return live.filter((record) => keys.includes(record.key as string));
    },
    insert: async (_queue, jobs) => {
      calls.inserts.push(jobs);
      return inserts.shift() ?? [];
    },
  };
  return { backend, calls };
}

describe('pairEnqueued (unit)', () => {
  it('pairs every input with its row when nothing was skipped, without reading', async () => {
    const { backend, calls } = backendOf([]);
    const records = await pairEnqueued(
      backend,
      'q',
      [job(null), job('a')],
      [
        { id: '1', key: null },
        { id: '2', key: 'a' },
      ],
      5,
    );
    expect(records.map((record) => [record.id, record.key])).toEqual([
      ['1', null],
      ['2', 'a'],
    ]);
    expect(calls).toEqual({ inserts: [], lookups: [] });
  });

  it('gives an input whose key a live job holds that job, and the others their own rows in input order', async () => {
    const holder = { ...newJobRecord('q', job('a', '{"held":true}'), '7', 1), status: 'running' as const };
    const { backend, calls } = backendOf([], [holder]);
    const records = await pairEnqueued(
      backend,
      'q',
      [job(null), job('a'), job('b')],
      [
        { id: '8', key: null },
        { id: '9', key: 'b' },
      ],
      5,
    );
    expect(records.map((record) => record.id)).toEqual(['8', '7', '9']);
    expect(records[1]).toBe(holder);
    expect(calls.lookups).toEqual([['a']]);
    expect(calls.inserts).toEqual([]);
  });

  it("takes a key over when its holder finished between the insert and the read: one more insert, that job's row", async () => {
    const { backend, calls } = backendOf([[{ id: '12', key: 'a' }]]);
    const records = await pairEnqueued(backend, 'q', [job(null), job('a')], [{ id: '11', key: null }], 5);
    expect(records.map((record) => [record.id, record.key])).toEqual([
      ['11', null],
      ['12', 'a'],
    ]);
    // Only the unresolved input is inserted again.
    expect(calls.inserts).toEqual([[job('a')]]);
  });

  it('tries the takeover up to three inserts in all, then refuses with JobKeyConflictError naming the key', async () => {
    const third = backendOf([[], [{ id: '30', key: 'a' }]]);
    const records = await pairEnqueued(third.backend, 'q', [job('a')], [], 5);
    expect(records.map((record) => record.id)).toEqual(['30']);
    expect(third.calls.inserts).toHaveLength(2);

    const never = backendOf([[], [], [], []]);
    const error = await pairEnqueued(never.backend, 'q', [job('a')], [], 5).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JobKeyConflictError);
    expect(error).toMatchObject({ queue: 'q', key: 'a' });
    expect(never.calls.inserts).toHaveLength(2);
  });
});
