/** Told once when a LazyAbortController aborts, without an AbortSignal or a listener of one (see `onAbort`). */
export interface AbortHook {
  aborted(reason: unknown): void;
}

/**
 * An AbortController created only when someone reads its signal or aborts it. Most handlers never look at
 * `job.signal`, and a controller per job was 4-5 % of CPU at high throughput.
 */
export class LazyAbortController {
  private controller?: AbortController;
  private hook?: AbortHook;

  /** The signal, created on first read; aborted already if `abort` came first. */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** Whether `abort` was called, without creating the signal. */
  get aborted(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  /** Aborts the signal (created now if nobody read it yet, so a late reader still sees it aborted). */
  abort(reason: unknown): void {
    const controller = (this.controller ??= new AbortController());
    if (controller.signal.aborted) return;
    controller.abort(reason);
    const hook = this.hook;
    this.hook = undefined;
    hook?.aborted(controller.signal.reason);
  }

  /**
   * Sets the one hook told of the abort (undefined: none), with the signal's reason. Costs a field, where a listener
   * of the signal would create the signal (an AbortController per job, its listener and their garbage): a batch
   * collector hears of each job's timeout, cancel or shutdown this way.
   */
  onAbort(hook: AbortHook | undefined): void {
    this.hook = hook;
  }
}
