/**
 * How long a failed job waits before its next attempt. The delay of attempt `n` (1-based, the attempt
 * that failed) is `delay` for `fixed` and `delay * 2^(n-1)` for `exponential`, capped by `maxDelay`;
 * with `jitter` it is drawn uniformly from [delay / 2, delay] so retries of a burst spread out. Whatever it
 * computes, no delay exceeds `MAX_RETRY_DELAY` (365 days).
 */
export interface BackoffOptions {
  /** `fixed` waits the same each time; `exponential` doubles after every failed attempt. */
  type: 'fixed' | 'exponential';
  /** Base delay in ms (>= 0). */
  delay: number;
  /** Upper bound of any single delay in ms. Default: no bound for `fixed`, 1 hour for `exponential`. */
  maxDelay?: number;
  /** Spread delays randomly over [delay / 2, delay]. Default `false`. */
  jitter?: boolean;
}
