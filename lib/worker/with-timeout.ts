import { JobTimeoutError } from '../errors/job-timeout.error';
import { LazyAbortController } from './lazy-abort-controller';

/** Runs `work`, failing with `JobTimeoutError` (and aborting the job's signal) once `timeout` ms pass. */
export function withTimeout<T>(work: () => Promise<T>, timeout: number, controller: LazyAbortController, jobId: string): Promise<T> {
  const started = Promise.resolve().then(work);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new JobTimeoutError(jobId, timeout);
      controller.abort(error);
      reject(error);
    }, timeout);
    started.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
