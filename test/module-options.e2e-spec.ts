import { DynamicModule, Injectable, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import {
  JOBS_TABLE,
  Job,
  Processor,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  SqliteQueueModule,
  SqliteQueueModuleOptions,
  SqliteQueueOptionsFactory,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { CountingConnection, countingConnection } from './support/counting-data-source';
import { jobCounts } from './support/job-counts';
import { deferred, waitFor } from './support/wait-for';
import { ConnectionOptions, describeEachBackend, perTestApp, MIGRATED } from './support/backends';

/** A latch that holds a handler until the test releases it. */
type Gate = ReturnType<typeof deferred<void>>;

/** The app's own configuration, as a ConfigModule would provide it. */
class QueueConfig {
  constructor(
    readonly connection: ConnectionOptions,
    readonly workerId: string,
  ) {}
}

/** Builds the queue options from the app's configuration; counts its calls to tell instances apart. */
@Injectable()
class QueueOptionsService implements SqliteQueueOptionsFactory {
  calls = 0;
  constructor(private readonly config: QueueConfig) {}
  createSqliteQueueOptions(): SqliteQueueModuleOptions {
    this.calls++;
    return { ...this.config.connection, workerId: this.config.workerId, pollInterval: 50 };
  }
}

/** A ConfigModule-like module: provides and exports the configuration (and, for useExisting, the options service). */
@Module({})
class AppConfigModule {
  static forRoot(config: QueueConfig): DynamicModule {
    return {
      module: AppConfigModule,
      providers: [{ provide: QueueConfig, useValue: config }, QueueOptionsService],
      exports: [QueueConfig, QueueOptionsService],
    };
  }
}

describeEachBackend('module wiring', (backend) => {
  let apps: TestingModule[];
  let connections: (CountingConnection | DataSource)[];

  beforeEach(() => {
    apps = [];
    connections = [];
  });
  afterEach(async () => {
    for (const app of apps.splice(0).reverse()) await app.close();
    for (const connection of connections.splice(0)) {
      if (connection instanceof DataSource) {
        if (connection.isInitialized) await connection.destroy();
      } else {
        await connection.destroy();
      }
    }
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend, MIGRATED);

  async function start(module: Parameters<typeof Test.createTestingModule>[0]): Promise<TestingModule> {
    const app = await Test.createTestingModule(module).compile();
    await app.init();
    apps.push(app);
    return app;
  }

  /**
   * Proves the built options are the ones in force: a job is held running so its lock shows the configured
   * worker id (no default has it), and a producer-only app opened on the configured file sees the job.
   */
  async function expectOptionsInForce(app: TestingModule, gate: Gate, workerId: string): Promise<void> {
    const admin = app.get(QueueAdmin);
    const job = await app.get(QueueProducer).add('configured', { n: 1 });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'running', 'the job is running');
    expect((await admin.getJob(job.id))?.lockedBy).toBe(workerId);
    const observer = await start({ imports: [SqliteQueueModule.forRoot({ ...current.db.options, processing: false })] });
    expect(await observer.get(QueueAdmin).getCounts('configured')).toEqual(jobCounts({ running: 1 }));
    gate.resolve();
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the job completed');
  }

  function gatedProcessor(gate: Gate) {
    return defineProcessor('configured', () => gate.promise);
  }

  describe('forRootAsync', () => {
    it('useFactory with inject builds the options from a provider of an imported config module', async () => {
      const gate = deferred();
      const app = await start({
        imports: [
          SqliteQueueModule.forRootAsync({
            imports: [AppConfigModule.forRoot(new QueueConfig(current.db.options, 'from-factory'))],
            inject: [QueueConfig],
            useFactory: async (config: QueueConfig) => ({ ...config.connection, workerId: config.workerId, pollInterval: 50 }),
          }),
        ],
        providers: [gatedProcessor(gate)],
      });
      await expectOptionsInForce(app, gate, 'from-factory');
    });

    it('useClass builds the options with its own instance of the class, whose dependencies come from imports', async () => {
      const gate = deferred();
      const app = await start({
        imports: [
          SqliteQueueModule.forRootAsync({
            imports: [AppConfigModule.forRoot(new QueueConfig(current.db.options, 'from-class'))],
            useClass: QueueOptionsService,
          }),
        ],
        providers: [gatedProcessor(gate)],
      });
      await expectOptionsInForce(app, gate, 'from-class');
    });

    it('useExisting builds the options with the instance the imported module already provides', async () => {
      const gate = deferred();
      const app = await start({
        imports: [
          SqliteQueueModule.forRootAsync({
            imports: [AppConfigModule.forRoot(new QueueConfig(current.db.options, 'from-existing'))],
            useExisting: QueueOptionsService,
          }),
        ],
        providers: [gatedProcessor(gate)],
      });
      await expectOptionsInForce(app, gate, 'from-existing');
      // The config module's own instance was asked, not a second copy.
      expect(app.get(QueueOptionsService, { strict: false }).calls).toBe(1);
    });
  });

  describe('a DataSource owned by the host application', () => {
    it.each([
      ['already initialised', true],
      ['not yet initialised', false],
    ])('is used (%s) and never destroyed by the module: the host can still query it after app.close()', async (_case, initialise) => {
      const dataSource = new DataSource({ type: 'sqlite', database: current.db.path });
      connections.push(dataSource);
      if (initialise) {
        await dataSource.initialize();
        await dataSource.query('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
      }
      const NoteProcessor = defineProcessor<{ text: string }>('notes', async (job: Job<{ text: string }>) => {
        // The handler writes through the host's DataSource, as an app's own repositories would.
        if (initialise) await dataSource.query('INSERT INTO notes (text) VALUES (?)', [job.data.text]);
      });
      const app = await start({
        imports: [SqliteQueueModule.forRoot({ dataSource, pollInterval: 50 })],
        providers: [NoteProcessor],
      });
      expect(dataSource.isInitialized).toBe(true);
      await app.get(QueueProducer).addBulk(
        'notes',
        ['a', 'b', 'c'].map((text) => ({ data: { text } })),
      );
      await waitFor(async () => (await app.get(QueueAdmin).getCounts('notes')).completed === 3, 'three jobs completed');

      await app.close();
      apps.splice(apps.indexOf(app), 1);

      expect(dataSource.isInitialized).toBe(true);
      expect(await dataSource.query(`SELECT status, COUNT(*) AS count FROM ${JOBS_TABLE} GROUP BY status`)).toEqual([
        { status: 'completed', count: 3 },
      ]);
      if (initialise)
        expect(await dataSource.query('SELECT text FROM notes ORDER BY id')).toEqual([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    });
  });

  describe('discovery and injection across modules', () => {
    it('finds a @Processor provided two feature modules deep, with its own dependencies injected', async () => {
      const delivered: string[] = [];

      @Injectable()
      class Mailer {
        send(to: string): void {
          delivered.push(to);
        }
      }

      @Processor('welcome-mail')
      class WelcomeMailProcessor implements QueueProcessor<{ to: string }, void> {
        constructor(private readonly mailer: Mailer) {}
        async process(job: Job<{ to: string }>): Promise<void> {
          this.mailer.send(job.data.to);
        }
      }

      @Module({ providers: [Mailer, WelcomeMailProcessor] })
      class MailFeatureModule {}

      @Module({ imports: [MailFeatureModule] })
      class AccountsModule {}

      const app = await start({ imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 50 }), AccountsModule] });
      const job = await app.get(QueueProducer).add('welcome-mail', { to: 'ada@example.com' });
      const admin = app.get(QueueAdmin);
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the welcome mail job completed');
      expect(delivered).toEqual(['ada@example.com']);
    });

    it('injects QueueProducer and QueueAdmin into a service of a module that does not import the queue module', async () => {
      @Injectable()
      class SignupService {
        constructor(
          private readonly producer: QueueProducer,
          private readonly admin: QueueAdmin,
        ) {}
        async signUp(email: string): Promise<string> {
          return (await this.producer.add('signups', { email })).id;
        }
        async waiting(): Promise<number> {
          return (await this.admin.getCounts('signups')).pending;
        }
      }

      @Module({ providers: [SignupService], exports: [SignupService] })
      class SignupModule {}

      const app = await start({ imports: [SqliteQueueModule.forRoot({ ...current.db.options, processing: false }), SignupModule] });
      const signups = app.get(SignupService);
      const id = await signups.signUp('grace@example.com');
      await signups.signUp('alan@example.com');
      expect(await signups.waiting()).toBe(2);
      expect((await app.get(QueueAdmin).getJob(id))?.data).toEqual({ email: 'grace@example.com' });
    });
  });

  describe('processing: false', () => {
    it('claims nothing, even with a processor registered, while a processing app on the same file polls on', async () => {
      // The app under test: it has a processor for "reports", but must neither claim nor run anything.
      const quiet = countingConnection(current.db);
      connections.push(quiet);
      let reportRuns = 0;
      const quietApp = await start({
        imports: [SqliteQueueModule.forRoot({ ...quiet.options, pollInterval: 50, processing: false })],
        providers: [defineProcessor('reports', async () => void reportRuns++)],
      });
      // The control: a processing app on the same file, for another queue. Its claims are the clock of the test.
      const control = countingConnection(current.db);
      connections.push(control);
      const controlApp = await start({
        imports: [SqliteQueueModule.forRoot({ ...control.options, pollInterval: 50 })],
        providers: [defineProcessor('other', async () => undefined)],
      });

      await quietApp.get(QueueProducer).addBulk(
        'reports',
        [1, 2, 3].map((n) => ({ data: { n } })),
      );
      await controlApp.get(QueueProducer).add('other', { n: 1 });
      const claimsBefore = control.log.claims;
      await waitFor(
        async () => (await controlApp.get(QueueAdmin).getCounts('other')).completed === 1 && control.log.claims >= claimsBefore + 5,
        'the control app ran its job and polled five more times',
      );

      expect(quiet.log.claims).toBe(0);
      expect(reportRuns).toBe(0);
      expect(await quietApp.get(QueueAdmin).getCounts('reports')).toEqual(jobCounts({ pending: 3 }));
    });
  });
});
