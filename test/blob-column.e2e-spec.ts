/**
 * A row another tool wrote with a BLOB in a column the SQLite claim packs into its JSON array (json_array refuses
 * BLOBs): the row costs that row, never the database. It fails with InvalidStoredDataError naming the column, logged
 * with its id and queue through Nest's Logger, and every other job, of its queue and of another, completes.
 */
import { LoggerService } from '@nestjs/common';
import { JOBS_TABLE, Job, Processor, QueueAdmin, QueueProcessor, QueueProducer } from '../lib';
import { rawQuery } from './support/raw-sqlite';
import { waitFor } from './support/wait-for';
import { describeEachSqlite, perTestApp, MIGRATED, TestDatabase } from './support/backends';

/** Every column of the claim's packed array a foreign row could fill with a BLOB and still be due. */
const PACKED_COLUMNS = [
  'priority',
  'max_attempts',
  'backoff',
  'timeout_ms',
  'unique_key',
  'created_at',
  'name',
  'remove_on',
  'job_group',
  'trace_context',
] as const;

@Processor('blobs')
class BlobsProcessor implements QueueProcessor<{ n: number }, number> {
  async process(job: Job<{ n: number }>): Promise<number> {
    return job.data.n;
  }
}

@Processor('neighbour')
class NeighbourProcessor implements QueueProcessor<{ n: number }, number> {
  async process(job: Job<{ n: number }>): Promise<number> {
    return job.data.n;
  }
}

/** Keeps the error lines the library logs. */
class CapturingLogger implements LoggerService {
  readonly errors: string[] = [];
  log(): void {}
  warn(): void {}
  debug(): void {}
  verbose(): void {}
  error(message: unknown, ...rest: unknown[]): void {
    this.errors.push([message, ...rest].map(String).join(' '));
  }
}

/** Inserts a due job of queue `blobs` the way another tool might, with a BLOB in `column`; returns its id. */
async function insertBlobRow(db: TestDatabase, column: (typeof PACKED_COLUMNS)[number]): Promise<string> {
  const now = Date.now();
  const row: Record<string, unknown> = {
    queue: 'blobs',
    status: 'pending',
    data: '{"n":-1}',
    priority: 0,
    run_at: now,
    attempts: 0,
    max_attempts: 3,
    created_at: now,
    updated_at: now,
  };
  row[column] = Buffer.from([0x00, 0xff, 0x10]);
  const names = Object.keys(row);
  const [inserted] = await rawQuery<{ id: number }>(
    db,
    `INSERT INTO ${JOBS_TABLE} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) RETURNING id`,
    Object.values(row),
  );
  return String(inserted.id);
}

describeEachSqlite('a foreign row with a BLOB in a packed column', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('fails that row with InvalidStoredDataError, logged with its id and queue; every other job completes', async () => {
    const logger = new CapturingLogger();
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [BlobsProcessor, NeighbourProcessor], logger });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);

    const bad = new Map<string, string>();
    for (const column of PACKED_COLUMNS) bad.set(column, await insertBlobRow(current.db, column));
    const good = [
      ...(await producer.addBulk(
        'blobs',
        Array.from({ length: 10 }, (_, n) => ({ data: { n } })),
      )),
      ...(await producer.addBulk(
        'neighbour',
        Array.from({ length: 10 }, (_, n) => ({ data: { n } })),
      )),
    ];

    await waitFor(async () => {
      const counts = [await admin.getCounts('blobs'), await admin.getCounts('neighbour')];
      return counts[0].completed === 10 && counts[0].failed === PACKED_COLUMNS.length && counts[1].completed === 10;
    }, 'the good jobs completed and the foreign rows failed');

    for (const job of good) expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', result: job.data.n });
    for (const [column, id] of bad) {
      const info = (await admin.getJob(id))!;
      expect(info).toMatchObject({ status: 'failed', lockedBy: null, leaseUntil: null });
      expect(info.error).toMatchObject({ name: 'InvalidStoredDataError' });
      expect(info.error!.message).toContain(column);
      expect(info.error!.message).toMatch(/BLOB/);
      expect(logger.errors.some((line) => line.includes(`Job ${id} (queue blobs)`) && line.includes(column))).toBe(true);
    }
    // Failed for good: the row was not retried (its other columns cannot be trusted).
    expect((await admin.getCounts('blobs')).pending).toBe(0);
  });
});
