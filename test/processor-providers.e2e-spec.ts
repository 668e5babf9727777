import { Test } from '@nestjs/testing';
import { Job, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

/**
 * A processor is a provider however it is provided: `useFactory` and `useValue` providers carry no class as their
 * metatype, and discovery used to skip them silently (their jobs stayed pending for ever).
 */
describeEachBackend('processors provided with useFactory, useValue and useExisting', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('runs the jobs of processors made by a factory or given as a value, and an alias does not register twice', async () => {
    const handled: string[] = [];
    const record = async (job: Job<string>) => {
      handled.push(`${job.queue}:${job.data}`);
      return job.data;
    };
    const FromFactory = defineProcessor('from-factory', record);
    const FromValue = defineProcessor('from-value', record);
    const Aliased = defineProcessor('aliased', record);
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 100 })],
      providers: [
        { provide: 'FACTORY_PROCESSOR', useFactory: () => new FromFactory() },
        { provide: 'VALUE_PROCESSOR', useValue: new FromValue() },
        Aliased,
        { provide: 'ALIASED_PROCESSOR', useExisting: Aliased },
      ],
    }).compile();
    await current.app.init();
    const producer = current.app.get(QueueProducer);
    const admin = current.app.get(QueueAdmin);
    const ids = await Promise.all(['from-factory', 'from-value', 'aliased'].map(async (queue) => (await producer.add(queue, 'x')).id));
    await waitFor(async () => {
      const jobs = await Promise.all(ids.map((id) => admin.getJob(id)));
      return jobs.every((job) => job?.status === 'completed');
    }, 'every job to complete');
    expect(handled.sort()).toEqual(['aliased:x', 'from-factory:x', 'from-value:x']);
  });
});
