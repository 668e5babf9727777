import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { JobNotRunningError } from '../errors/job-not-running.error';
import { JobInfo } from '../interfaces/job-info.interface';
import { EnqueuedJob } from '../interfaces/job.interface';
import { WaitOptions } from '../interfaces/wait-options.interface';
import { QueueRuntime } from '../runtime/queue-runtime';
import { CallerTransaction, JobRecord } from '../storage/queue-storage.interface';
import { assertAdminOptions } from '../utils/assert-options.util';
import { WAIT_OPTION_KEYS } from '../utils/option-keys.util';
import { MAX_TIMER_MS, describeValue, isTimerDuration } from '../utils/validation.util';
import { toJobInfo } from '../views/to-job-info';
import { ChildrenSource, toJob } from '../worker/job-runtime';
import { AddWrite, ProducerStorage } from './add-step';

const NEVER_ABORTED = { signal: new AbortController().signal };

/** A handle's children while its transaction has not rolled back; after that its id may name another job. */
function childrenWhileAlive(storage: ProducerStorage, transaction: CallerTransaction): ChildrenSource {
  return {
    childrenOf: (id) => (transaction.rolledBack ? Promise.reject(new JobNotFoundError(id)) : storage.childrenOf(id)),
    dependenciesOf: (id) => (transaction.rolledBack ? Promise.reject(new JobNotFoundError(id)) : storage.dependenciesOf(id)),
  };
}

/**
 * A job handed back to a producer: not started (its signal never aborts, it cannot report progress, log or update
 * data), and it can be waited for (through `runtime`'s finish watcher).
 */
export function enqueuedJob<TData, TResult>(
  runtime: Pick<QueueRuntime, 'finishWatcher'>,
  record: JobRecord,
  { storage, transaction }: AddWrite,
): EnqueuedJob<TData, TResult> {
  const refuse = () => Promise.reject(new JobNotRunningError(record.id, record.queue));
  const job = toJob<TData, TResult>(
    record,
    NEVER_ABORTED,
    { updateProgress: refuse, log: refuse, updateData: refuse, completeIn: refuse },
    transaction ? childrenWhileAlive(storage, transaction) : storage,
  );
  return Object.assign(job, {
    waitUntilFinished: async (options: WaitOptions = {}): Promise<JobInfo<TData, TResult>> => {
      assertAdminOptions('waitUntilFinished', options, WAIT_OPTION_KEYS);
      if (options.timeout !== undefined && !isTimerDuration(options.timeout)) {
        throw new InvalidArgumentError(
          'waitUntilFinished',
          'timeout',
          `must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(options.timeout)}`,
        );
      }
      return toJobInfo<TData, TResult>(await runtime.finishWatcher.wait(record.id, options.timeout, transaction));
    },
  });
}
