import { ForbiddenException, Injectable, Inject } from '@nestjs/common';
import { QueueAdmin } from '../admin/queue-admin.service';
import { DeadLetterQueueInfo } from '../admin/redrive';
import { JobExplanation } from '../interfaces/job-explanation.interface';
import { FailureGroup } from '../interfaces/queue-info.interface';
import { assertQueueName } from '../utils/queue-name.util';
import { ActionAnswer } from './dashboard-api.service';
import { toHttpError } from './dashboard-http-error';
import { ResolvedDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { QUEUE_DASHBOARD_OPTIONS } from './queue-dashboard.constants';
import { SharedRead, SharedReads } from './shared-read';

/** A slow read is kept this many times as long as it took (see SharedRead), as DashboardApi's reads are. */
const SLOW_READ_FACTOR = 20;
/** Failure groups a queue's page shows. */
const FAILURE_GROUPS_SHOWN = 10;

/**
 * The dashboard's inspection reads and the dead-letter action: a job's
 * explanation (`QueueAdmin.explain`), whether a queue is a dead-letter queue (`listDeadLetterQueues`), and "Redrive
 * all" (`QueueAdmin.redrive`). Kept apart from DashboardApi so each stays one concern.
 */
@Injectable()
export class DashboardInspectApi {
  /**
   * Each poll of an open page repeats these reads: one read per poll interval serves every tab (the dead-letter
   * declarations and counts, a queue's failure groups, a job's explanation), and an action forgets them all.
   */
  private readonly deadLetters: SharedRead<DeadLetterQueueInfo[]>;
  private readonly failures: SharedReads<FailureGroup[]>;
  private readonly explanations: SharedReads<JobExplanation>;

  constructor(
    private readonly admin: QueueAdmin,
    @Inject(QUEUE_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {
    const interval = options.refreshInterval;
    this.deadLetters = new SharedRead(() => this.admin.listDeadLetterQueues(), interval, SLOW_READ_FACTOR);
    this.failures = new SharedReads(
      (queue) => this.admin.getFailureGroups(queue, { limit: FAILURE_GROUPS_SHOWN }),
      interval,
      SLOW_READ_FACTOR,
    );
    // An explanation moves with the clock (a delay running out, a lease): kept one second only, not a whole interval.
    this.explanations = new SharedReads((id) => this.admin.explain(id), 1000, SLOW_READ_FACTOR);
  }

  /** Forgets every kept read: an action changed what they say. */
  invalidate(): void {
    this.deadLetters.invalidate();
    this.failures.invalidate();
    this.explanations.invalidate();
  }

  /** The queue's failed jobs grouped by error (`QueueAdmin.getFailureGroups`), most failures first. */
  async failureGroups(queue: string): Promise<FailureGroup[]> {
    try {
      return await this.failures.get(queue);
    } catch (error) {
      throw toHttpError(error, `Reading the failures of ${queue}`);
    }
  }

  /** Why job `id` is where it is; 404 (JobNotFoundError) for an id that names no job. */
  async explain(id: string): Promise<JobExplanation> {
    try {
      return await this.explanations.get(id);
    } catch (error) {
      throw toHttpError(error, `Explaining job ${id}`);
    }
  }

  /** The dead-letter queue `queue` is (the queues naming it, its waiting dead letters), or null when none names it. */
  async deadLetterQueue(queue: string): Promise<DeadLetterQueueInfo | null> {
    try {
      // One grouped read of the processor declarations and the dead letters' counts: a queue page's poll.
      const all = await this.deadLetters.get();
      return all.find((each) => each.queue === queue) ?? null;
    } catch (error) {
      throw toHttpError(error, `Reading the dead-letter queues for ${queue}`);
    }
  }

  /** Sends every dead letter waiting in `queue` back to the queue it came from; refused in read-only mode. */
  async redrive(queue: string): Promise<ActionAnswer> {
    if (this.options.readOnly) throw new ForbiddenException({ message: 'The dashboard is read-only: actions are turned off.' });
    try {
      assertQueueName(queue);
      const moved = await this.admin.redrive(queue);
      return { message: `${moved} dead letter(s) of ${queue} sent back to their queues as new pending jobs.` };
    } catch (error) {
      throw toHttpError(error, `Redriving ${queue}`);
    }
  }
}
