/**
 * What only the PostgreSQL backend has: its schema handling, a borrowed DataSource, LISTEN/NOTIFY across
 * connections and its reconnect, SKIP LOCKED claims, 64-bit ids. PostgreSQL-only (the jest `sqlite` project
 * ignores test/postgres-*); everything else runs against it through the shared suite.
 */
import { Test, TestingModule } from '@nestjs/testing';
import { firstValueFrom, take, timeout, toArray } from 'rxjs';
import { DataSource } from 'typeorm';
import {
  InvalidModuleOptionsError,
  JOBS_TABLE,
  Job,
  Processor,
  QueueAdmin,
  QueueModule,
  QueueProcessor,
  QueueProducer,
  SqliteQueueModule,
  getPostgresSchemaSql,
} from '../lib';
import { NewJobRecord } from '../lib/storage/queue-storage.interface';
import { createPostgresStorage } from '../lib/storage/postgres/postgres-queue.storage';
import { PgListenClient, PostgresNotificationListener } from '../lib/storage/postgres/postgres-notification-listener';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { PostgresStatements } from '../lib/storage/postgres/postgres-statements';
import { claimJobs } from '../lib/storage/postgres/sql/claim.sql';
import { insertJobs } from '../lib/storage/postgres/sql/enqueue.sql';
import { completeJobs } from '../lib/storage/postgres/sql/outcomes.sql';
import { postgresTables } from '../lib/storage/postgres/sql/postgres-sql-fragments';
import { waitFor } from './support/wait-for';
import { describePostgres } from './support/backends';
import { postgresSchemaFor, postgresTestUrl } from './support/test-backend';
import { latestSchemaVersion } from './support/schema-versions';

let schemaCounter = 0;
/** A schema name of this run that no other test uses (dropped by the project's global teardown). */
function freshSchema(): string {
  return postgresSchemaFor(`/pg-storage/${process.pid}/${Date.now()}/${schemaCounter++}`);
}

function newJob(overrides: Partial<NewJobRecord> = {}): NewJobRecord {
  return { data: '{}', priority: 0, runAt: Date.now(), maxAttempts: 3, backoff: null, timeout: null, key: null, ...overrides };
}

// pg is an optional peer of the library: its Client as the listener sees it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (config: { connectionString: string; application_name: string }) => PgListenClient };

function postgresDataSource(): DataSource {
  return new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 4 });
}

@Processor('pg-echo')
class EchoProcessor implements QueueProcessor<{ n: number }, number> {
  async process(job: Job<{ n: number }>): Promise<number> {
    return job.data.n;
  }
}

describePostgres('PostgreSQL backend', () => {
  const storages: QueueStorage[] = [];
  const dataSources: DataSource[] = [];
  let app: TestingModule | undefined;

  /** A storage on its own DataSource, closed after the test. */
  async function storage(schema: string, createSchema = true): Promise<QueueStorage> {
    const created = createPostgresStorage({ connection: { url: postgresTestUrl(), poolSize: 4 }, schema, createSchema });
    storages.push(created);
    await created.initialize();
    return created;
  }

  async function admin(): Promise<DataSource> {
    const dataSource = postgresDataSource();
    dataSources.push(dataSource);
    return dataSource.initialize();
  }

  afterEach(async () => {
    await app?.close();
    app = undefined;
    await Promise.all(storages.splice(0).map((s) => s.close()));
    await Promise.all(
      dataSources
        .splice(0)
        .filter((d) => d.isInitialized)
        .map((d) => d.destroy()),
    );
  });

  describe('schema', () => {
    it('is created idempotently by several processes booting at once', async () => {
      const schema = freshSchema();
      // Five storages, five pools: five sessions racing to create the same schema.
      await Promise.all(Array.from({ length: 5 }, () => storage(schema)));
      const db = await admin();
      const tables: { table_name: string }[] = await db.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
        [schema],
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'nest_queue_dependencies',
        'nest_queue_event_readers',
        'nest_queue_events',
        'nest_queue_group_limits',
        'nest_queue_jobs',
        'nest_queue_migrations',
        'nest_queue_processes',
        'nest_queue_queues',
        'nest_queue_schedules',
      ]);
      // And again, on an existing schema.
      await storage(schema);
    });

    it('getPostgresSchemaSql() gives the statements to run in a migration; createSchema: false then boots on them', async () => {
      const schema = freshSchema();
      await expect(storage(schema, false)).rejects.toThrow(
        new RegExp(`version 0, and this build needs version ${latestSchemaVersion('postgres')}.*getMigrations`),
      );
      const db = await admin();
      const statements = getPostgresSchemaSql(schema);
      expect(statements[0]).toBe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      for (const statement of statements) await db.query(statement);
      for (const statement of statements) await db.query(statement); // rerunnable
      const s = await storage(schema, false);
      const [job] = await s.enqueue('q', [newJob()], Date.now());
      expect(job.status).toBe('pending');
    });

    it('defaults to the nest_queue schema and rejects schema names it cannot quote safely', () => {
      expect(getPostgresSchemaSql()[0]).toBe('CREATE SCHEMA IF NOT EXISTS "nest_queue"');
      expect(() => getPostgresSchemaSql('x"; DROP TABLE users; --')).toThrow(/Invalid PostgreSQL schema name/);
    });
  });

  describe('module options', () => {
    it('QueueModule.forRoot({ dataSource }) initialises a borrowed postgres DataSource and leaves it open on close', async () => {
      const dataSource = postgresDataSource();
      dataSources.push(dataSource);
      const schema = freshSchema();
      app = await Test.createTestingModule({
        imports: [QueueModule.forRoot({ dataSource, postgres: { schema }, pollInterval: 100 })],
        providers: [EchoProcessor],
      }).compile();
      await app.init();
      expect(dataSource.isInitialized).toBe(true);
      const job = await app.get(QueueProducer).add('pg-echo', { n: 42 });
      const queueAdmin = app.get(QueueAdmin);
      await waitFor(async () => (await queueAdmin.getJob(job.id))?.status === 'completed', 'job completed');
      expect(await queueAdmin.getJob(job.id)).toMatchObject({ result: 42, attempts: 1 });
      const [row]: { count: string }[] = await dataSource.query(`SELECT count(*) AS count FROM "${schema}".${JOBS_TABLE}`);
      expect(Number(row.count)).toBe(1);
      await app.close();
      app = undefined;
      expect(dataSource.isInitialized).toBe(true);
      expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    });

    it.each([
      [{ postgres: { url: postgresTestUrl() }, database: '/tmp/x.sqlite' }, 'postgres', /cannot be combined with database/],
      [{ postgres: { schema: 'bad-name' } }, 'postgres.schema', /identifier/],
      [{ postgres: { port: 0 } }, 'postgres.port', /1 to 65535/],
      [{ postgres: { createSchema: 'yes' } }, 'postgres.createSchema', /boolean/],
      [{ postgres: { preparedStatements: 1 } }, 'postgres.preparedStatements', /boolean/],
      [{ postgres: { hots: 'typo' } }, 'postgres.hots', /not an option/],
      [{ postgres: 'postgres://localhost' }, 'postgres', /must be an object/],
      [{ postgres: { host: 'h' }, dataSource: postgresDataSource() }, 'postgres.host', /dataSource is given/],
    ])('rejects %j naming %s', async (options, option, message) => {
      const moduleRef = Test.createTestingModule({ imports: [SqliteQueueModule.forRoot(options as never)] });
      const error = await moduleRef
        .compile()
        .then((built) => built.init())
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect(error).toMatchObject({ option });
      expect((error as Error).message).toMatch(message);
    });
  });

  describe('LISTEN/NOTIFY', () => {
    it('wakes another connection at commit when a due job is inserted, but not for a delayed one', async () => {
      const schema = freshSchema();
      const listener = await storage(schema);
      const producer = await storage(schema);
      const hints: number[] = [];
      const subscription = listener.insertHints$.subscribe(() => hints.push(Date.now()));
      try {
        const now = Date.now();
        await producer.enqueue('q', [newJob({ runAt: now + 60_000 })], now);
        await producer.enqueue('q', [newJob({ runAt: now }), newJob({ runAt: now })], now);
        await waitFor(() => hints.length >= 1, 'a hint from the other connection', 5000);
        await new Promise((resolve) => setTimeout(resolve, 200));
        // One notification per statement (PostgreSQL folds identical ones of a transaction); none for the delayed job.
        expect(hints).toHaveLength(1);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('re-establishes a LISTEN connection the server killed, emits a catch-up hint, and hears notifications again', async () => {
      const schema = freshSchema();
      const listener = await storage(schema);
      const producer = await storage(schema);
      const db = await admin();
      const received: number[] = [];
      const subscription = listener.insertHints$.subscribe(() => received.push(Date.now()));
      try {
        const channel = `${schema}_jobs_due`;
        const backends: { pid: number }[] = await db.query(
          `SELECT pid FROM pg_stat_activity WHERE query LIKE $1 AND datname = current_database()`,
          [`LISTEN "${channel}";%`],
        );
        expect(backends).toHaveLength(2); // both storages listen, each on ONE connection for all its channels
        await db.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [backends.map((b) => b.pid)]);
        await waitFor(() => received.length >= 1, 'the catch-up hint after reconnecting', 10_000);
        expect(received).toHaveLength(1);
        await producer.enqueue('q', [newJob()], Date.now());
        await waitFor(() => received.length >= 2, 'a notification on the new connection', 10_000);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('closes while a reconnect is still connecting, though node-postgres never settles the connect of a client ended then', async () => {
      // Each attempt is a client of its own, told apart on the server by its application_name.
      const name = `${freshSchema()}_listen`;
      let attempts = 0;
      let closing: Promise<void> | undefined;
      const listener = new PostgresNotificationListener(
        () => {
          const client = new Client({ connectionString: postgresTestUrl(), application_name: `${name}_${++attempts}` });
          if (attempts === 2) {
            // close() the moment the reconnect has begun to connect: an app shut down during a reconnect.
            const connect = client.connect.bind(client);
            client.connect = () => {
              const connecting = connect();
              closing = listener.close();
              return connecting;
            };
          }
          return client;
        },
        name,
        `LISTEN "${name}"`,
        { log: () => undefined, warn: () => undefined },
        { initialDelay: 1, maxDelay: 1 },
      );
      try {
        await listener.start();
        expect(listener.listening).toBe(true);
        const db = await admin();
        await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`${name}_1`]);
        await waitFor(() => closing !== undefined, 'the reconnect attempt', 10_000);
        let closed = false;
        void closing!.then(() => (closed = true));
        // Before, close() waited for that connect forever, and so did app.close() of an app shut down during a reconnect.
        await waitFor(() => closed, 'close() to return', 10_000);
        expect(listener.listening).toBe(false);
        // Nothing of the listener is left on the server (a terminated backend takes a moment to leave the list).
        const backends = async () =>
          ((await db.query('SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1', [`${name}_%`])) as unknown[]).length;
        await waitFor(async () => (await backends()) === 0, 'no backend of the listener left', 10_000);
      } finally {
        if (!closing) await listener.close();
      }
    });
  });

  describe('prepared statements', () => {
    /** A runner over a one-connection pool, so `pg_prepared_statements` (per session) shows what it prepared. */
    async function oneConnection(prepared: boolean, onRefused: (error: unknown) => void = () => undefined) {
      const schema = freshSchema();
      const s = await storage(schema);
      const dataSource = new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 1 });
      dataSources.push(dataSource);
      await dataSource.initialize();
      const db = { runner: new PostgresStatements(dataSource, prepared, onRefused), tables: postgresTables(schema) };
      const preparedNames = async (): Promise<string[]> =>
        (
          (await dataSource.query(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'nest_queue_%' ORDER BY name`)) as {
            name: string;
          }[]
        ).map((row) => row.name);
      /** One enqueue, claim and completion through the runner; the id it completed. */
      const cycle = async (): Promise<string[]> => {
        const now = Date.now();
        await insertJobs(db, 'q', [newJob({ runAt: now })], now);
        const claimed = await claimJobs(db, [{ queue: 'q', limit: 1 }], 'w1', Date.now(), 30_000);
        expect(claimed).toHaveLength(1);
        return [...(await completeJobs(db, [{ ref: { id: claimed[0].id, attempt: 1 }, result: '1' }], 'w1', Date.now()))];
      };
      return { s, schema, dataSource, preparedNames, cycle };
    }

    it('keep the hot statements (enqueue, claim, completion) prepared once per connection, and nothing else', async () => {
      const { s, preparedNames, cycle } = await oneConnection(true);
      await cycle();
      const names = await preparedNames();
      expect(names).toHaveLength(3);
      await cycle();
      await s.getCounts();
      expect(await preparedNames()).toEqual(names);
    });

    it('are not used with preparedStatements: false', async () => {
      const { preparedNames, cycle } = await oneConnection(false);
      expect(await cycle()).toHaveLength(1);
      expect(await preparedNames()).toEqual([]);
    });

    it('that the server dropped (DISCARD ALL, a pooling proxy): the statement runs unnamed, the runner says so once and names none again', async () => {
      const refusals: unknown[] = [];
      const { schema, dataSource, preparedNames, cycle } = await oneConnection(true, (error) => refusals.push(error));
      await cycle();
      expect(await preparedNames()).toHaveLength(3);
      // node-postgres still believes the connection holds them: its next Bind names a statement the server lost.
      await dataSource.query('DEALLOCATE ALL');
      const completed = await cycle();
      expect(completed).toHaveLength(1);
      expect(refusals).toHaveLength(1);
      expect(String(refusals[0])).toMatch(/does not exist/);
      await cycle();
      expect(refusals).toHaveLength(1);
      expect(await preparedNames()).toEqual([]);
      const [{ completed: count }] = (await dataSource.query(
        `SELECT count(*)::int AS completed FROM ${postgresTables(schema).T} WHERE status = 'completed'`,
      )) as { completed: number }[];
      expect(count).toBe(3);
    });

    it('through the module: jobs run with preparedStatements on and off', async () => {
      for (const preparedStatements of [true, false]) {
        const moduleRef = await Test.createTestingModule({
          imports: [QueueModule.forRoot({ postgres: { url: postgresTestUrl(), schema: freshSchema(), preparedStatements } })],
          providers: [EchoProcessor],
        }).compile();
        app = moduleRef;
        await moduleRef.init();
        const producer = moduleRef.get(QueueProducer);
        const admin = moduleRef.get(QueueAdmin);
        const jobs = await producer.addBulk(
          'pg-echo',
          [1, 2, 3].map((n) => ({ data: { n } })),
        );
        await waitFor(async () => (await admin.getCounts('pg-echo')).completed === 3, 'three completed');
        expect(await Promise.all(jobs.map(async (job) => (await admin.getJob(job.id))?.result))).toEqual([1, 2, 3]);
        await moduleRef.close();
        app = undefined;
      }
    });
  });

  describe('claims', () => {
    it('commit without waiting for the WAL flush, and the pooled connection keeps synchronous commits for what follows', async () => {
      const schema = freshSchema();
      const s = await storage(schema);
      const now = Date.now();
      await s.enqueue('q', [newJob({ runAt: now }), newJob({ runAt: now })], now);
      // One connection only: whatever the claim set would still be set for the next statement on it.
      const dataSource = new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 1 });
      dataSources.push(dataSource);
      await dataSource.initialize();
      const db = { runner: new PostgresStatements(dataSource, true, () => undefined), tables: postgresTables(schema) };
      const [claimed] = await claimJobs(db, [{ queue: 'q', limit: 1 }], 'w1', Date.now(), 30_000);
      expect(claimed).toBeDefined();
      expect(await dataSource.query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'on' }]);
      // The completion on that connection is a synchronous commit again, and the claim it follows holds.
      const completed = await completeJobs(db, [{ ref: { id: claimed.id, attempt: claimed.attempts }, result: null }], 'w1', Date.now());
      expect([...completed]).toEqual([claimed.id]);
    });

    it('skip rows another transaction holds locked instead of waiting for them', async () => {
      const schema = freshSchema();
      const s = await storage(schema);
      const now = Date.now();
      const jobs = await s.enqueue(
        'q',
        Array.from({ length: 6 }, () => newJob({ runAt: now })),
        now,
      );
      const db = await admin();
      const runner = db.createQueryRunner();
      await runner.connect();
      let locked = false;
      const unlock = async () => {
        if (!locked) return;
        locked = false;
        await runner.rollbackTransaction();
      };
      try {
        await runner.startTransaction();
        locked = true;
        // Another process is in the middle of claiming the first three.
        await runner.query(`SELECT id FROM "${schema}".${JOBS_TABLE} WHERE id = ANY($1::bigint[]) FOR UPDATE`, [
          jobs.slice(0, 3).map((j) => j.id),
        ]);
        const started = Date.now();
        const claiming = s.claim([{ queue: 'q', limit: 10 }], 'w1', Date.now(), 30_000);
        // A claim that waits for the locks would wait until this transaction ends: bound the wait, then end it, so
        // the test fails at once with the reason instead of by jest's timeout.
        const blocked = await Promise.race([
          claiming.then(() => false),
          new Promise<true>((resolve) => setTimeout(() => resolve(true), 5000)),
        ]);
        if (blocked) {
          await unlock();
          await claiming.catch(() => undefined);
          throw new Error('the claim waited 5 s for rows another transaction holds locked: it must skip them (FOR UPDATE SKIP LOCKED)');
        }
        const claimed = await claiming;
        expect(Date.now() - started).toBeLessThan(2000);
        expect(claimed.map((j) => j.id).sort()).toEqual(
          jobs
            .slice(3)
            .map((j) => j.id)
            .sort(),
        );
      } finally {
        await unlock();
        await runner.release();
      }
    });

    it('hand every job to exactly one of several concurrent claimers', async () => {
      const schema = freshSchema();
      const claimers = await Promise.all(Array.from({ length: 4 }, () => storage(schema)));
      const now = Date.now();
      await claimers[0].enqueue(
        'a',
        Array.from({ length: 300 }, () => newJob({ runAt: now })),
        now,
      );
      await claimers[0].enqueue(
        'b',
        Array.from({ length: 300 }, () => newJob({ runAt: now })),
        now,
      );
      const claimedIds: string[] = [];
      await Promise.all(
        claimers.map(async (claimer, index) => {
          for (;;) {
            const jobs = await claimer.claim(
              [
                { queue: 'a', limit: 7 },
                { queue: 'b', limit: 5 },
              ],
              `w${index}`,
              Date.now(),
              30_000,
            );
            if (jobs.length === 0) return;
            claimedIds.push(...jobs.map((j) => j.id));
          }
        }),
      );
      expect(claimedIds).toHaveLength(600);
      expect(new Set(claimedIds).size).toBe(600);
    });
  });

  it('enqueues a schedule occurrence once when several nodes race for it, and advances the schedule once', async () => {
    const schema = freshSchema();
    const nodes = await Promise.all(Array.from({ length: 4 }, () => storage(schema)));
    const now = Date.now();
    const schedule = {
      queue: 'tick',
      name: 'every-second',
      cron: null,
      every: 1000,
      timezone: null,
      data: '{}',
      options: null,
      nextRunAt: now,
    };
    await nodes[0].upsertSchedule(schedule, now);
    const [due] = await nodes[1].dueSchedules(now);
    const occurrence = { schedule: due, occurrenceAt: now, job: newJob({ runAt: now }), nextRunAt: now + 1000 };
    const inserted = await Promise.all(nodes.map((node) => node.enqueueOccurrence(occurrence, Date.now())));
    expect(inserted.filter(Boolean)).toHaveLength(1);
    expect(await nodes[2].getCounts('tick')).toEqual([{ queue: 'tick', status: 'pending', count: 1 }]);
    expect((await nodes[3].listSchedules())[0].nextRunAt).toBe(now + 1000);
    // A node that saw the old next run later finds the occurrence taken and the schedule already advanced.
    expect(await nodes[3].enqueueOccurrence(occurrence, Date.now())).toBe(false);
    expect((await nodes[3].listSchedules())[0].nextRunAt).toBe(now + 1000);
  });

  it('enqueue returns records equal to the stored rows, a taken key returning its holder', async () => {
    const s = await storage(freshSchema());
    const now = Date.now();
    const full = newJob({
      data: '{"a":"\\u0000"}',
      priority: 7,
      runAt: now + 5,
      maxAttempts: 4,
      backoff: '{"type":"fixed","delay":5}',
      timeout: 1.5,
      key: 'k',
    });
    const [first, again, plain] = await s.enqueue('q', [full, { ...full, data: '{"other":true}' }, newJob({ runAt: now })], now);
    expect(await s.getJob(first.id)).toEqual(first);
    expect(await s.getJob(plain.id)).toEqual(plain);
    expect(again).toEqual(first);
    const [later] = await s.enqueue('q', [{ ...full, data: '{"third":true}' }], now + 1);
    expect(later).toEqual(first);
  });

  it('returns 64-bit ids as exact strings', async () => {
    const schema = freshSchema();
    const s = await storage(schema);
    const db = await admin();
    // Past 2^53, where a JavaScript number would silently round: 2^53 + 3, which no double holds (2^53 + 2 is one,
    // and an id read through a number would come back right).
    await db.query(`SELECT setval(pg_get_serial_sequence('"${schema}".${JOBS_TABLE}', 'id'), 9007199254740994)`);
    const [job] = await s.enqueue('q', [newJob()], Date.now());
    expect(job.id).toBe('9007199254740995');
    expect((await s.getJob('9007199254740995'))?.id).toBe('9007199254740995');
    const [claimed] = await s.claim([{ queue: 'q', limit: 1 }], 'w', Date.now(), 30_000);
    expect(claimed.id).toBe('9007199254740995');
    expect(await s.completeMany([{ ref: { id: claimed.id, attempt: 1 }, result: '1' }], 'w', Date.now())).toEqual(
      new Set(['9007199254740995']),
    );
    expect(await s.getCounts('q')).toEqual([{ queue: 'q', status: 'completed', count: 1 }]);
  });

  it('QueueModule is SqliteQueueModule under a backend-neutral name', () => {
    expect(QueueModule).toBe(SqliteQueueModule);
  });

  it('sees the hint stream complete on close', async () => {
    const s = await storage(freshSchema());
    const all = firstValueFrom(s.insertHints$.pipe(take(100), toArray(), timeout(5000)));
    await s.close();
    expect(await all).toEqual([]);
  });
});
