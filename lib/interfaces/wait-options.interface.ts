/** Options of `waitUntilFinished` and `waitUntilIdle`. */
export interface WaitOptions {
  /** Give up after this many ms with `WaitTimeoutError`. Default: wait as long as it takes. */
  timeout?: number;
}
