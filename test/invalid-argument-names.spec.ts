import { Test } from '@nestjs/testing';
import { InvalidArgumentError, QueueProducer, SnoozeError, SqliteQueueModule } from '../lib';
import { toLogLine } from '../lib/utils/job-logs.util';

/**
 * An InvalidArgumentError names the call that refused its argument, as the reader wrote it. It used to put
 * `QueueAdmin.` before every name: `QueueAdmin.addFlow()`, `QueueAdmin.job.log()` and `QueueAdmin.SnoozeError()` sent
 * a reader looking on QueueAdmin for methods it does not have.
 */
describe('InvalidArgumentError names the call it came from', () => {
  function thrown(call: () => unknown): InvalidArgumentError {
    try {
      call();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidArgumentError);
      return error as InvalidArgumentError;
    }
    throw new Error('no error thrown');
  }

  it('new SnoozeError() with a bad delay', () => {
    expect(thrown(() => new SnoozeError(-1)).message).toBe('new SnoozeError(): delay must be a number of ms from 0 to 100 years, got -1');
  });

  it("a job's log() with a line that is not a string", () => {
    expect(thrown(() => toLogLine('mail', '7', 42)).message).toBe('job.log(): line must be a string (job 7, queue mail), got 42');
  });

  it('QueueProducer.addFlow() and addGraph() with an unknown option', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ database: ':memory:', processing: false })],
    }).compile();
    await moduleRef.init();
    try {
      const producer = moduleRef.get(QueueProducer);
      const options = { manger: undefined } as never;
      await expect(producer.addFlow({ queue: 'q', data: {} }, options)).rejects.toThrow(
        /^QueueProducer\.addFlow\(\): option "manger" is not an option \(did you mean "manager"\?\)/,
      );
      await expect(producer.addGraph([{ ref: 'a', queue: 'q', data: {} }], options)).rejects.toThrow(
        /^QueueProducer\.addGraph\(\): option "manger" is not an option/,
      );
    } finally {
      await moduleRef.close();
    }
  });

  it('QueueAdmin methods keep their prefix', () => {
    expect(new InvalidArgumentError('clean', 'olderThan', 'must be a duration').message).toBe(
      'QueueAdmin.clean(): olderThan must be a duration',
    );
  });
});
