/**
 * `QueueAdmin.getJobs(queue, { search })`: jobs whose data, name, unique key or last error contain
 * the text, without regard to case, combined with the status, name and group filters and paging; the JSON columns
 * match their stored text as stored and as JSON writes a string; hostile text is a plain
 * text (never a LIKE pattern, never SQL) or a typed error. Its bound (the table's newest 100,000 rows) is measured in
 * bench/search-cost.js rather than filled here; the storage contract below pins that the bound is applied, set small.
 */
import { InvalidArgumentError, QueueAdmin, QueueProducer, UnrecoverableError } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { errorOf } from './support/ops';
import { contractStorage, newJob } from './support/storage-contract';

describeEachBackend('QueueAdmin.getJobs({ search })', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  async function start() {
    // Jobs whose data says `fail` fail at once with a message of their own: the search reads the last error.
    const Fails = defineProcessor<{ fail?: string }>('found', async (job) => {
      if (job.data.fail) throw new UnrecoverableError(job.data.fail);
      return 'ok';
    });
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Fails] });
    return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin) };
  }

  const ids = (jobs: { id: string }[]) => jobs.map((job) => job.id);

  it('finds text in data, name, key and last error, without regard to case, in that queue only, newest first', async () => {
    const { producer, admin } = await start();
    await admin.pause('found');
    const byData = await producer.add('found', { customer: { email: 'Ada.Lovelace@Example.com' } });
    const byName = await producer.add('found', { n: 2 }, { name: 'Lovelace-report' });
    const byKey = await producer.add('found', { n: 3 }, { key: 'invoice-LOVELACE-7' });
    await producer.add('found', { n: 4 }, { name: 'other', key: 'k4' });
    await producer.add('elsewhere', { customer: { email: 'ada.lovelace@example.com' } });
    await admin.resume('found');
    const failing = await producer.add('found', { fail: 'Upstream said NO to Lovelace' });
    await admin.waitUntilFinished(failing.id).catch(() => undefined);
    await admin.waitUntilIdle('found');

    expect(ids(await admin.getJobs('found', { search: 'lovelace' }))).toEqual([failing.id, byKey.id, byName.id, byData.id]);
    expect(ids(await admin.getJobs('found', { search: 'ADA.LOVELACE@example' }))).toEqual([byData.id]);
    expect(ids(await admin.getJobs('found', { search: 'said no' }))).toEqual([failing.id]);
    expect(ids(await admin.getJobs('found', { search: 'invoice-lovelace' }))).toEqual([byKey.id]);
    expect(await admin.getJobs('found', { search: 'nobody' })).toEqual([]);
    // The rows come back whole, as getJobs returns them without a search.
    const [found] = await admin.getJobs('found', { search: 'ada.lovelace' });
    expect(found.data).toEqual({ customer: { email: 'Ada.Lovelace@Example.com' } });
  });

  it('finds a debounced job by its key, pending or after it ran, and a throttled one', async () => {
    const { producer, admin } = await start();
    await admin.pause('found');
    const debounced = await producer.add('found', { n: 1 }, { key: 'digest-MARIE-9', debounce: true });
    const throttled = await producer.add('found', { n: 2 }, { key: 'digest-marie-10', keyTtl: 60_000 });
    await producer.add('found', { n: 3 }, { key: 'other', debounce: true });
    expect(ids(await admin.getJobs('found', { search: 'digest-marie-9' }))).toEqual([debounced.id]);
    expect(ids(await admin.getJobs('found', { search: 'DIGEST-MARIE' }))).toEqual([throttled.id, debounced.id]);
    await admin.resume('found');
    await admin.waitUntilIdle('found');
    expect(ids(await admin.getJobs('found', { search: 'marie-9', status: 'completed' }))).toEqual([debounced.id]);
  });

  it('combines with the status and name filters and pages', async () => {
    const { producer, admin } = await start();
    await admin.pause('found');
    const jobs = [];
    for (let n = 0; n < 7; n++) jobs.push(await producer.add('found', { order: `order-${n}` }, { name: n % 2 ? 'odd' : 'even' }));
    await producer.add('found', { order: 'unrelated' }, { name: 'odd' });
    const newestFirst = [...jobs].reverse().map((job) => job.id);

    expect(ids(await admin.getJobs('found', { search: 'ORDER-', limit: 3 }))).toEqual(newestFirst.slice(0, 3));
    expect(ids(await admin.getJobs('found', { search: 'order-', limit: 3, offset: 3 }))).toEqual(newestFirst.slice(3, 6));
    expect(ids(await admin.getJobs('found', { search: 'order-', name: 'odd' }))).toEqual([jobs[5].id, jobs[3].id, jobs[1].id]);
    expect(ids(await admin.getJobs('found', { search: 'order-', status: 'pending', name: 'even', limit: 2 }))).toEqual([
      jobs[6].id,
      jobs[4].id,
    ]);
    expect(await admin.getJobs('found', { search: 'order-', status: 'completed' })).toEqual([]);
  });

  it('treats %, _, quotes and backslashes as plain characters, and finds them where the data holds them', async () => {
    const { producer, admin } = await start();
    await admin.pause('found');
    const percent = await producer.add('found', { note: '50% off' });
    const underscore = await producer.add('found', { note: 'snake_case' });
    const quoted = await producer.add('found', { note: `say "hi" to O'Brien` });
    const slashed = await producer.add('found', { path: 'C:\\temp\\new' });
    const unicode = await producer.add('found', { note: 'Grüße, 東京' });
    await producer.add('found', { note: '500 off, snakeXcase, say hi' });

    expect(ids(await admin.getJobs('found', { search: '%' }))).toEqual([percent.id]);
    expect(ids(await admin.getJobs('found', { search: '0% o' }))).toEqual([percent.id]);
    expect(ids(await admin.getJobs('found', { search: 'e_c' }))).toEqual([underscore.id]);
    expect(ids(await admin.getJobs('found', { search: '"hi"' }))).toEqual([quoted.id]);
    expect(ids(await admin.getJobs('found', { search: "O'Brien" }))).toEqual([quoted.id]);
    expect(ids(await admin.getJobs('found', { search: 'temp\\new' }))).toEqual([slashed.id]);
    // A backslash is in the stored JSON of the path (`\\`) and of the escaped quotes (`\"`): both hold it.
    expect(ids(await admin.getJobs('found', { search: '\\' }))).toEqual([slashed.id, quoted.id]);
    expect(ids(await admin.getJobs('found', { search: '東京' }))).toEqual([unicode.id]);
    // SQL in the text is text.
    expect(await admin.getJobs('found', { search: "'); DROP TABLE nest_queue_jobs; --" })).toEqual([]);
    expect(await admin.getJobs('found', { search: '_%' })).toEqual([]);
    expect(await admin.getCounts('found')).toMatchObject({ pending: 6 });
  });

  it('matches the stored JSON text as stored: keys, quotes and punctuation of the structure are text too', async () => {
    const { producer, admin } = await start();
    await admin.pause('found');
    const two = await producer.add('found', { n: 2 });
    const twenty = await producer.add('found', { n: 20, tag: 'x' });
    const nested = await producer.add('found', { order: { id: 'A-1', lines: [{ sku: 'p%_1' }] } });
    const text = await producer.add('found', { note: 'n":2 is not a key here' });
    const control = await producer.add('found', { note: 'tab\there' });

    // `"n":2` is the stored text of { n: 2 } (and the start of { n: 20 }): the user's quotes meet the structure's.
    expect(ids(await admin.getJobs('found', { search: '"n":2' }))).toEqual([twenty.id, two.id]);
    expect(ids(await admin.getJobs('found', { search: '"N":2' }))).toEqual([twenty.id, two.id]);
    expect(ids(await admin.getJobs('found', { search: '{"n":2}' }))).toEqual([two.id]);
    expect(ids(await admin.getJobs('found', { search: '"n":20,"tag":"x"' }))).toEqual([twenty.id]);
    // `n":2` as stored is in both numbers; as JSON writes it inside a string (`n\":2`), in the note.
    expect(ids(await admin.getJobs('found', { search: 'n":2' }))).toEqual([text.id, twenty.id, two.id]);
    expect(ids(await admin.getJobs('found', { search: '"lines":[{"sku":"p%_1"}]' }))).toEqual([nested.id]);
    expect(ids(await admin.getJobs('found', { search: '"sku":"p%_' }))).toEqual([nested.id]);
    // The stored text has no spaces: the text is matched as typed, never re-read as JSON.
    expect(await admin.getJobs('found', { search: '"n": 2' })).toEqual([]);
    // A control character is stored escaped: typed (a real tab) it is found through the JSON form, and so is `\t`.
    expect(ids(await admin.getJobs('found', { search: 'tab\there' }))).toEqual([control.id]);
    expect(ids(await admin.getJobs('found', { search: 'tab\\there' }))).toEqual([control.id]);
    // Hostile texts stay text: LIKE's and JSON's special characters, SQL, a quote alone (the structure of every job).
    expect(await admin.getJobs('found', { search: '"n":2%' })).toEqual([]);
    expect(await admin.getJobs('found', { search: '"_":2' })).toEqual([]);
    expect(await admin.getJobs('found', { search: `"n":2' OR '1'='1` })).toEqual([]);
    expect(await admin.getJobs('found', { search: '\\u0000' })).toEqual([]);
    expect(ids(await admin.getJobs('found', { search: '"' }))).toEqual([control.id, text.id, nested.id, twenty.id, two.id]);
    expect(await admin.getCounts('found')).toMatchObject({ pending: 5 });
  });

  it('combines with group, and with group, status and name together, through the same bounded read', async () => {
    const { producer, admin } = await start();
    await admin.pause('found');
    const a1 = await producer.add('found', { customer: 'ada' }, { group: 'tenant-a', name: 'mail' });
    await producer.add('found', { customer: 'bob' }, { group: 'tenant-a', name: 'mail' });
    const a2 = await producer.add('found', { customer: 'ada' }, { group: 'tenant-a', name: 'sms' });
    await producer.add('found', { customer: 'ada' }, { group: 'tenant-b', name: 'mail' });
    await producer.add('found', { customer: 'ada' }, { name: 'mail' });

    expect(ids(await admin.getJobs('found', { group: 'tenant-a', search: 'ADA' }))).toEqual([a2.id, a1.id]);
    expect(ids(await admin.getJobs('found', { group: 'tenant-a', search: 'ada', name: 'mail' }))).toEqual([a1.id]);
    expect(ids(await admin.getJobs('found', { group: 'tenant-a', search: 'ada', status: 'pending', limit: 1, offset: 1 }))).toEqual([
      a1.id,
    ]);
    expect(await admin.getJobs('found', { group: 'tenant-a', search: 'ada', status: 'completed' })).toEqual([]);
    expect(await admin.getJobs('found', { group: 'tenant-c', search: 'ada' })).toEqual([]);
    // Without a search the group listing takes the other filters as before.
    expect(ids(await admin.getJobs('found', { group: 'tenant-a', name: 'sms' }))).toEqual([a2.id]);
  });

  it('refuses a text that is not a string, empty, longer than 200 characters or holding a NUL, with a typed error', async () => {
    const { producer, admin } = await start();
    await producer.add('found', { n: 1 });
    for (const search of ['', 'x'.repeat(201), 'x'.repeat(10_240), 'a\0b', 42, null, { $ne: 1 }, ['a']]) {
      const error = await errorOf(() => admin.getJobs('found', { search: search as string }));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error.message).toMatch(/^QueueAdmin\.getJobs\(\): search must/);
    }
    expect(await admin.getJobs('found', { search: 'x'.repeat(200) })).toEqual([]);
  });
});

describeEachBackend('Storage contract: a search reads the table’s newest rows only', (backend) => {
  const s = contractStorage(backend);

  it('finds no job older than the newest searchScanRows of the table (every queue counted), with any filter and order', async () => {
    const now = Date.now();
    // Ids 1 to 6 in `q` hold the text; 7 and 8 in `other` do not, but count against the window (it is by id, all queues).
    const found = await s.storage.enqueue(
      'q',
      Array.from({ length: 6 }, (_, n) => newJob({ data: JSON.stringify({ note: `needle ${n}` }), name: 'x' })),
      now,
    );
    await s.storage.enqueue('other', [newJob(), newJob()], now);
    const ids = found.map((job) => job.id);
    const search = (extra: object) =>
      s.storage.listJobs('q', { search: 'NEEDLE', limit: 100, offset: 0, ...extra }).then((jobs) => jobs.map((job) => job.id));
    // The default bound (100,000) reaches them all.
    expect(await search({})).toEqual([...ids].reverse());
    // The newest 5 rows of the table are ids 4 to 8: of `q`'s, 4, 5 and 6 only.
    expect(await search({ searchScanRows: 5 })).toEqual([ids[5], ids[4], ids[3]]);
    expect(await search({ searchScanRows: 5, status: 'pending', name: 'x' })).toEqual([ids[5], ids[4], ids[3]]);
    expect(await search({ searchScanRows: 5, sort: { by: 'id', descending: false } })).toEqual([ids[3], ids[4], ids[5]]);
    expect(await search({ searchScanRows: 2 })).toEqual([]);
  });
});
