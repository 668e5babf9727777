import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InvalidModuleOptionsError, InvalidProcessorError, Processor, ProcessorOptions, SqliteQueueModule } from '../lib';

/**
 * A misspelt option names the one it resembles everywhere a newcomer configures the queue. forRoot, a job's options
 * and a schedule already did; @Processor options, their batch and limiters, queueLimits, registerQueue and `postgres` only
 * listed the known keys, and registerQueue not even those.
 */
describe('a misspelt option is answered with the option it resembles', () => {
  async function bootError(imports: unknown[], providers: unknown[] = []): Promise<Error> {
    @Module({ imports: imports as never[], providers: providers as never[] })
    class AppModule {}
    try {
      const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
      await moduleRef.init();
      await moduleRef.close();
    } catch (error) {
      return error as Error;
    }
    throw new Error('booted');
  }
  const root = () => SqliteQueueModule.forRoot({ database: ':memory:', processing: true, shutdownTimeout: 200 });

  it.each([
    [{ concurency: 2 }, 'unknown option "concurency" (did you mean "concurrency"?); known: concurrency,'],
    [{ batch: { size: 2, maxwait: 5 } }, 'batch has an unknown option "maxwait" (did you mean "maxWaitMs"?); known: size, maxWaitMs'],
    [{ limiter: { max: 1, duraton: 5 } }, 'limiter has an unknown option "duraton" (did you mean "duration"?); known: max, duration'],
  ])('@Processor(%j)', async (options, expected) => {
    @Processor('typos', options as ProcessorOptions)
    class TypoProcessor {
      async process(): Promise<void> {}
    }
    const error = await bootError([root()], [TypoProcessor]);
    expect(error).toBeInstanceOf(InvalidProcessorError);
    expect(error.message).toContain(expected);
  });

  it('forRoot queueLimits', async () => {
    const error = await bootError([
      SqliteQueueModule.forRoot({ database: ':memory:', queueLimits: { q: { limitter: { max: 1, duration: 5 } } } as never }),
    ]);
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error.message).toContain('"queueLimits.q": has an unknown option "limitter" (did you mean "limiter"?); known: limiter,');
  });

  it('registerQueue', async () => {
    const error = await bootError([root(), SqliteQueueModule.registerQueue({ name: 'q', defaultJobOption: {} } as never)]);
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error.message).toContain(
      '"registerQueue(q).defaultJobOption": is not an option (did you mean "defaultJobOptions"?); known: name, defaultJobOptions, schema',
    );
  });

  it('postgres', async () => {
    const error = await bootError([SqliteQueueModule.forRoot({ postgres: { usrname: 'x' } as never })]);
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error.message).toContain('"postgres.usrname": is not an option (did you mean "username"?); known: url,');
  });
});
