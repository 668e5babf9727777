import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Subscription } from 'rxjs';
import { JOB_EVENT_TYPES, JobEventType, JobProgress, QueueEvent, QueueEvents } from '../lib';
import { SAMPLE_CONFIG } from './sample.config';

/**
 * Listens to every queue's job events through the injectable `QueueEvents` stream: counts them all, and keeps
 * the few worth a line (the first retries, any failure, one progress trail) for the progress reporter to print
 * between its redraws, so thousands of events never turn into thousands of lines.
 */
@Injectable()
export class EventsReporterService implements OnModuleInit, OnApplicationShutdown {
  private readonly counts = new Map<JobEventType, number>(JOB_EVENT_TYPES.map((type) => [type, 0]));
  private readonly notes: string[] = [];
  /** The progress of the first job that reported any; one trail shows the idea without flooding. */
  private trail?: { jobId: string; steps: string[] };
  private subscription?: Subscription;

  constructor(private readonly events: QueueEvents) {}

  // The stream is hot: processing starts at application bootstrap, after every onModuleInit, so subscribing
  // here misses no event.
  onModuleInit(): void {
    this.subscription = this.events.events$.subscribe((event) => this.record(event));
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /** Notable events since the last call, one line each. */
  takeNotes(): string[] {
    return this.notes.splice(0);
  }

  /** How many events of each type this process saw, e.g. `active 3080, progress 24, ...`. */
  describeCounts(): string {
    return [...this.counts].map(([type, n]) => `${type} ${n}`).join(', ');
  }

  private record(event: QueueEvent): void {
    this.counts.set(event.type, (this.counts.get(event.type) ?? 0) + 1);
    const job = `${event.queue} job ${event.jobId}`;
    switch (event.type) {
      case 'retrying':
        if (this.counts.get('retrying')! <= SAMPLE_CONFIG.retriesShown) {
          const waitMs = Math.max(0, event.nextRunAt.getTime() - event.timestamp.getTime());
          this.notes.push(
            `  retrying: ${job} attempt ${event.attempt} threw ${event.error.name}: ${event.error.message}; next try in ${waitMs} ms`,
          );
        }
        return;
      case 'failed':
      case 'stalled':
      case 'cancelled':
        // None is expected in this demo, so each one is worth seeing.
        this.notes.push(`  ${event.type}: ${job} attempt ${event.attempt}`);
        return;
      case 'progress':
        this.trail ??= { jobId: event.jobId, steps: [] };
        if (this.trail.jobId === event.jobId) this.trail.steps.push(formatProgress(event.progress));
        return;
      case 'completed':
        if (this.trail?.jobId === event.jobId) this.notes.push(`  progress: ${job} ${this.trail.steps.join(' -> ')} -> completed`);
        return;
    }
  }
}

function formatProgress(progress: JobProgress): string {
  return typeof progress === 'number' ? `${progress}%` : JSON.stringify(progress);
}
