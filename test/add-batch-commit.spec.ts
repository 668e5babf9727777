import { AddBatchCommit } from '../lib/producer/add-batch-commit';
import { newJobRecord } from '../lib/storage/shared/job-row.mapper';
import { JobRecord, NewJobRecord } from '../lib/storage/queue-storage.interface';

const NOW = 1_700_000_000_000;
const record = (data: string, key: string | null = null): NewJobRecord => ({
  data,
  priority: 0,
  runAt: NOW,
  maxAttempts: 3,
  backoff: null,
  timeout: null,
  key,
});

/** A stand-in `enqueue` whose statements finish only when the test says so. */
class FakeEnqueue {
  readonly calls: { queue: string; data: string[]; now: number; finish: (error?: Error) => void }[] = [];
  private nextId = 1;
  /** Data that makes a statement fail as a whole, as a value the column refuses would. */
  poison?: string;
  readonly call = (queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]> =>
    new Promise<JobRecord[]>((resolve, reject) => {
      this.calls.push({
        queue,
        data: jobs.map((job) => job.data),
        now,
        finish: (error) => {
          if (error) return reject(error);
          if (this.poison !== undefined && jobs.some((job) => job.data === this.poison))
            return reject(new Error(`bad value ${this.poison}`));
          resolve(jobs.map((job) => newJobRecord(queue, job, String(this.nextId++), now)));
        },
      });
    });
  /** Finishes every statement handed over so far, then lets the batch commit react. */
  async finishAll(error?: Error): Promise<void> {
    for (const call of this.calls.splice(0)) call.finish(error);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('AddBatchCommit', () => {
  it('writes a lone add at once, with no timer, alone and with its own time', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call);
    const added = commit.add('a', record('x'), NOW + 5);
    // Synchronously: no timer, not even a microtask, stands between add() and the statement.
    expect(fake.calls.map((call) => call.data)).toEqual([['x']]);
    expect(fake.calls[0].now).toBe(NOW + 5);
    await fake.finishAll();
    await expect(added).resolves.toMatchObject({ id: '1', data: 'x', queue: 'a' });
  });

  it('lines up adds made while an insert is in flight and writes them in one statement, in call order', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call);
    const first = commit.add('a', record('0'), NOW);
    const rest = [1, 2, 3, 4].map((n) => commit.add('a', record(String(n)), NOW + n));
    expect(fake.calls.map((call) => call.data)).toEqual([['0']]);
    await fake.finishAll();
    expect(fake.calls.map((call) => call.data)).toEqual([['1', '2', '3', '4']]);
    // The latest caller's time, so every job of the batch is due by it.
    expect(fake.calls[0].now).toBe(NOW + 4);
    await fake.finishAll();
    expect((await Promise.all([first, ...rest])).map((job) => [job.id, job.data])).toEqual([
      ['1', '0'],
      ['2', '1'],
      ['3', '2'],
      ['4', '3'],
      ['5', '4'],
    ]);
    // The line is empty again: the next add goes at once.
    const later = commit.add('a', record('5'), NOW);
    expect(fake.calls).toHaveLength(1);
    await fake.finishAll();
    await expect(later).resolves.toMatchObject({ data: '5' });
  });

  it('keeps queues apart: an insert in flight for one queue does not hold up another', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call);
    void commit.add('a', record('a1'), NOW);
    void commit.add('a', record('a2'), NOW);
    void commit.add('b', record('b1'), NOW);
    expect(fake.calls.map((call) => [call.queue, call.data])).toEqual([
      ['a', ['a1']],
      ['b', ['b1']],
    ]);
    await fake.finishAll();
    expect(fake.calls.map((call) => [call.queue, call.data])).toEqual([['a', ['a2']]]);
    await fake.finishAll();
  });

  it('with two inserts in flight allowed (a pooled database), the second add goes at once too, the rest line up', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call, 2);
    const all = ['0', '1', '2', '3', '4'].map((data) => commit.add('a', record(data), NOW));
    expect(fake.calls.map((call) => call.data)).toEqual([['0'], ['1']]);
    await fake.finishAll();
    // The first to return takes the whole line; the other finds it empty.
    expect(fake.calls.map((call) => call.data)).toEqual([['2', '3', '4']]);
    await fake.finishAll();
    expect((await Promise.all(all)).map((job) => job.data)).toEqual(['0', '1', '2', '3', '4']);
    // Both drains ended: the next two adds go at once again.
    void commit.add('a', record('5'), NOW);
    void commit.add('a', record('6'), NOW);
    expect(fake.calls).toHaveLength(2);
    await fake.finishAll();
  });

  it('with two inserts in flight allowed, a long line goes as two statements at once, each half in call order; a short one as one', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call, 2);
    const all = Array.from({ length: 2 + 100 }, (_, n) => commit.add('a', record(String(n)), NOW));
    expect(fake.calls.map((call) => call.data)).toEqual([['0'], ['1']]);
    await fake.finishAll();
    // Both halves handed over before either returns: they are written side by side.
    expect(fake.calls.map((call) => call.data)).toEqual([
      Array.from({ length: 50 }, (_, n) => String(2 + n)),
      Array.from({ length: 50 }, (_, n) => String(52 + n)),
    ]);
    await fake.finishAll();
    expect((await Promise.all(all)).map((job) => job.data)).toEqual(Array.from({ length: 102 }, (_, n) => String(n)));
    // A line under 64 adds stays one statement.
    const short = Array.from({ length: 2 + 63 }, (_, n) => commit.add('a', record(`s${n}`), NOW));
    await fake.finishAll();
    expect(fake.calls.map((call) => call.data.length)).toEqual([63]);
    await fake.finishAll();
    await Promise.all(short);
  });

  it('with one insert in flight (one writer), a long line stays one statement', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call);
    const all = Array.from({ length: 101 }, (_, n) => commit.add('a', record(String(n)), NOW));
    await fake.finishAll();
    expect(fake.calls.map((call) => call.data.length)).toEqual([100]);
    await fake.finishAll();
    await Promise.all(all);
  });

  it('writes at most 1,000 adds per statement', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call);
    const all = Array.from({ length: 2_502 }, (_, n) => commit.add('a', record(String(n)), NOW));
    const sizes: number[] = [];
    while (fake.calls.length > 0) {
      sizes.push(...fake.calls.map((call) => call.data.length));
      await fake.finishAll();
    }
    expect(sizes).toEqual([1, 1_000, 1_000, 501]);
    expect((await Promise.all(all)).map((job) => job.data)).toEqual(Array.from({ length: 2_502 }, (_, n) => String(n)));
  });

  it('a batch that fails for one add is written again one add at a time: only that add gets the error', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call);
    const first = commit.add('a', record('ok0'), NOW);
    const batch = Promise.allSettled(['ok1', 'bad', 'ok2'].map((data) => commit.add('a', record(data), NOW)));
    fake.poison = 'bad';
    await fake.finishAll();
    await fake.finishAll(); // the batch: fails as a whole
    for (let i = 0; i < 3; i++) await fake.finishAll(); // one by one
    const outcomes = await batch;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('bad value bad'));
    await expect(first).resolves.toMatchObject({ data: 'ok0' });
  });

  it('a transient failure (busy, lost connection) goes to every add of the batch, with nothing written again', async () => {
    const fake = new FakeEnqueue();
    const commit = new AddBatchCommit(fake.call);
    const first = commit.add('a', record('0'), NOW);
    const batch = Promise.allSettled(['1', '2'].map((data) => commit.add('a', record(data), NOW)));
    await fake.finishAll();
    const busy = Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });
    await fake.finishAll(busy);
    await expect(first).resolves.toMatchObject({ data: '0' });
    expect(await batch).toEqual([
      { status: 'rejected', reason: busy },
      { status: 'rejected', reason: busy },
    ]);
    expect(fake.calls).toHaveLength(0);
  });
});
