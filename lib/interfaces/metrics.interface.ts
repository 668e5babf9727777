/** Percentiles of a duration sample, in ms. */
export interface DurationPercentiles {
  count: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

/** One queue's recent activity. */
export interface QueueMetrics {
  queue: string;
  /** Jobs completed in the window. */
  completed: number;
  /** Jobs failed for good in the window. */
  failed: number;
  /** Completions per minute, oldest minute first, one entry per minute of the window. */
  completedPerMinute: number[];
  /** Final failures per minute, oldest minute first. */
  failedPerMinute: number[];
  /** Wait time percentiles of the jobs finished in each minute, oldest minute first (null: none finished). */
  waitTimePerMinute: (DurationPercentiles | null)[];
  /** Run time percentiles of the jobs finished in each minute, oldest minute first (null: none finished). */
  runTimePerMinute: (DurationPercentiles | null)[];
  /** From due to start of the last attempt, of jobs finished in the window. */
  waitTime: DurationPercentiles | null;
  /** From start to finish of the last attempt, of jobs finished in the window. */
  runTime: DurationPercentiles | null;
}

/** What `QueueAdmin.getMetrics()` returns. */
export interface MetricsSnapshot {
  generatedAt: Date;
  /** The window covered, in minutes. */
  windowMinutes: number;
  /** Per queue with activity in the window. */
  queues: Record<string, QueueMetrics>;
  /** True when the window held more finished jobs than were sampled (the newest were used). */
  sampled: boolean;
}
