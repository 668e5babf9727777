/**
 * The throwaway application of the consumer test, the same source for every combination: it imports the
 * installed tarball as an application would (the dashboard's entry too: its module boots in an application context,
 * with no HTTP server to mount on), boots, adds a job through QueueProducer, waits for it to complete, adds one in a
 * rolled-back and one in a committed transaction of its own TypeORM DataSource (on the installed TypeORM: the
 * commit is heard through its subscribers), checks the terminus indicator, and closes. It must then exit by itself (no handle left open).
 * Configuration comes from the environment that test/consumer/consumer-apps.consumer-spec.ts sets.
 */
import 'reflect-metadata';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { DataSource } from 'typeorm';
import {
  Job,
  Processor,
  QueueEvents,
  QueueModuleOptions,
  QueueProcessor,
  QueueProducer,
  SqliteQueueModule,
  UnsupportedDriverError,
} from 'nestjs-sqlite-queue';
import { QueueHealthIndicator, QueueHealthResult } from 'nestjs-sqlite-queue/terminus';
import { QueueDashboardModule } from 'nestjs-sqlite-queue/dashboard';

interface Greeting {
  name: string;
}

@Processor('greetings')
class GreetingProcessor implements QueueProcessor<Greeting, string> {
  async process(job: Job<Greeting>): Promise<string> {
    return `hello ${job.data.name}`;
  }
}

function queueOptions(): QueueModuleOptions {
  const postgresUrl = process.env.CONSUMER_POSTGRES_URL;
  if (postgresUrl) {
    return { postgres: { url: postgresUrl, schema: process.env.CONSUMER_POSTGRES_SCHEMA }, pollInterval: 200 };
  }
  return { database: required('CONSUMER_DATABASE'), pollInterval: 200 };
}

/** The application's own DataSource on the queue's database, as `dataSource.transaction()` users have one. */
function applicationDataSource(): DataSource {
  const postgresUrl = process.env.CONSUMER_POSTGRES_URL;
  if (postgresUrl) return new DataSource({ type: 'postgres', url: postgresUrl });
  // 'sqlite' (node-sqlite3) exists only on TypeORM 0.3, so no literal type compiles against both majors.
  const options = { type: required('CONSUMER_SQLITE_TYPE'), database: required('CONSUMER_DATABASE') };
  return new DataSource(options as unknown as ConstructorParameters<typeof DataSource>[0]);
}

/** A job added in a rolled-back transaction is never announced; one added in a committed one is, then completes. */
async function transactionalAdds(app: INestApplicationContext): Promise<Record<string, unknown>> {
  const source = await applicationDataSource().initialize();
  const producer = app.get(QueueProducer);
  const events = app.get(QueueEvents);
  const added: string[] = [];
  const subscription = events.on('added', 'greetings').subscribe((event) => added.push(event.jobId));
  try {
    let rolledBackId = '';
    await source
      .transaction(async (manager) => {
        rolledBackId = (await producer.add<Greeting>('greetings', { name: 'rolled back' }, { manager })).id;
        throw new Error('roll back');
      })
      .catch(() => undefined);
    let committedId = '';
    const completed = (id: () => string) =>
      firstValueFrom(
        events.on('completed', 'greetings').pipe(
          filter((event) => event.jobId === id()),
          timeout(30_000),
        ),
      );
    const done = completed(() => committedId);
    await source.transaction(async (manager) => {
      committedId = (await producer.add<Greeting>('greetings', { name: 'committed' }, { manager })).id;
    });
    const result = (await done).result;
    return { result, committedAnnounced: added.includes(committedId), rolledBackAnnounced: added.includes(rolledBackId) };
  } finally {
    subscription.unsubscribe();
    await source.destroy();
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function appModule(options: QueueModuleOptions): new () => object {
  @Module({
    imports: [SqliteQueueModule.forRoot(options), QueueDashboardModule.forRoot({ path: '/queues' })],
    providers: [GreetingProcessor],
  })
  class AppModule {}
  return AppModule;
}

/** On TypeORM 1, asking for the removed sqlite3 driver must fail with the typed error, before anything opens. */
async function expectSqlite3Refused(): Promise<string> {
  try {
    const app = await NestFactory.createApplicationContext(appModule({ database: required('CONSUMER_DATABASE'), driver: 'sqlite3' }), {
      logger: false,
      abortOnError: false,
    });
    await app.close();
  } catch (error) {
    if (error instanceof UnsupportedDriverError) return error.message;
    throw error;
  }
  throw new Error("driver: 'sqlite3' was accepted on TypeORM 1");
}

async function main(): Promise<void> {
  const refused = process.env.CONSUMER_EXPECT_SQLITE3_REFUSED === '1' ? await expectSqlite3Refused() : null;
  const app = await NestFactory.createApplicationContext(appModule(queueOptions()), { logger: ['error', 'warn'], abortOnError: false });
  const completed = firstValueFrom(app.get(QueueEvents).on('completed', 'greetings').pipe(timeout(30_000)));
  const job = await app.get(QueueProducer).add<Greeting>('greetings', { name: 'consumer' });
  const event = await completed;
  const transactional = await transactionalAdds(app);
  const health: QueueHealthResult = await app.get(QueueHealthIndicator).isHealthy('queue');
  await app.close();
  const report = { jobId: job.id, completedJobId: event.jobId, result: event.result, health: health.queue.status, refused, transactional };
  console.log(`CONSUMER-REPORT ${JSON.stringify(report)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
