import { Logger } from '@nestjs/common';
import { JobEventBus } from '../events/job-event-bus';
import { RecentCompletions } from '../events/recent-completions';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { FinishedJobStatus } from '../interfaces/job-info.interface';
import { PayloadSchema } from '../interfaces/payload-schema.interface';
import { ProcessorOptions } from '../interfaces/processor-options.interface';
import { LimitStorage, SnoozeStorage } from '../storage/queue-storage.interface';
import { QueueTelemetry } from '../telemetry/queue-telemetry';
import { AttemptStorage } from './attempt-runner';
import { OutcomeWriter } from './outcome-writer';

/** What a queue's worker uses: its attempts' storage, and a RateLimitError's pause. */
export type WorkerStorage = AttemptStorage & Pick<LimitStorage, 'rateLimit' | 'groupRateLimit'> & SnoozeStorage;

/** What a worker needs from the process around it. */
export interface QueueWorkerContext {
  storage: WorkerStorage;
  /** Shared by the process's workers: outcomes are written in batches. */
  outcomes: OutcomeWriter;
  workerId: string;
  defaultBackoff: BackoffOptions;
  events: JobEventBus;
  /** OpenTelemetry spans of each attempt; absent when off or not installed. */
  telemetry?: QueueTelemetry;
  logger: Logger;
  /** A slot freed up: the poller may claim again. */
  onSlotFreed(): void;
  /** A retry was written to fall due at `runAt`. */
  onRetryScheduled(runAt: number): void;
  /** A job of this queue reached a finished status: retention may have work. */
  onFinished(queue: string, status: FinishedJobStatus): void;
  /** A job added with `removeOnComplete` / `removeOnFail` reached that outcome: delete it soon. */
  onRemovable?(id: string, status: 'completed' | 'failed'): void;
  /** Whether the retention of `queue` keeps no completed job: its completions delete their rows. */
  keepsNoCompleted?(queue: string): boolean;
  /** Completions that delete their row, remembered briefly for waits that begin just after (see RecentCompletions). */
  recentCompletions?: RecentCompletions;
  /** A handler's RateLimitError paused this queue until `until` (epoch ms). */
  onRateLimited?(queue: string, until: number): void;
  /** A handler's GroupRateLimitError paused one group of this queue until `until`: the queue's other groups go on. */
  onGroupRateLimited?(queue: string, until: number): void;
  /** Most snoozes per job (module option `maxSnoozes`, default 1,000): one more fails the job with SnoozeLimitError. */
  maxSnoozes?: number;
}

/** The settings of one queue's processor, validated. */
export interface WorkerSettings extends Omit<ProcessorOptions, 'schema'> {
  concurrency: number;
  /** The queue's schema, a DTO class already made into its Standard Schema. */
  schema?: PayloadSchema;
}
