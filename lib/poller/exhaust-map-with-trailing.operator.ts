import { Observable, ObservableInput, OperatorFunction, Subscription, from } from 'rxjs';

/**
 * Like `exhaustMap`, one inner run at a time, but a value that arrives during a run is not lost: the latest
 * one is kept and run as soon as the run in progress completes. That is "claims never overlap, and a wake-up
 * during a claim brings one more claim after it". Completes once the source has completed and the last run
 * (the kept value's included) has completed, so a consumer can wait for the work in flight by waiting for
 * completion.
 */
export function exhaustMapWithTrailing<T, R>(project: (value: T) => ObservableInput<R>): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let running: Subscription | undefined;
      let kept: { value: T } | undefined;
      let sourceDone = false;
      const run = (value: T): void => {
        const current = new Subscription();
        running = current;
        current.add(
          from(project(value)).subscribe({
            next: (result) => subscriber.next(result),
            error: (error: unknown) => subscriber.error(error),
            complete: () => {
              if (running === current) running = undefined;
              if (kept) {
                const next = kept;
                kept = undefined;
                run(next.value);
              } else if (sourceDone) subscriber.complete();
            },
          }),
        );
      };
      const upstream = source.subscribe({
        next: (value) => {
          if (running) kept = { value };
          else run(value);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          if (!running) subscriber.complete();
        },
      });
      return () => {
        upstream.unsubscribe();
        running?.unsubscribe();
      };
    });
}
