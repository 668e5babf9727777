import { ForbiddenException, Injectable, Inject } from '@nestjs/common';
import { QueueAdmin } from '../admin/queue-admin.service';
import { DeadLetterQueueInfo } from '../admin/redrive';
import { JobExplanation } from '../interfaces/job-explanation.interface';
import { assertQueueName } from '../utils/queue-name.util';
import { ActionAnswer } from './dashboard-api.service';
import { toHttpError } from './dashboard-http-error';
import { ResolvedDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { QUEUE_DASHBOARD_OPTIONS } from './queue-dashboard.constants';

/**
 * The dashboard's inspection reads and the dead-letter action (issue 29 item 5, issue 28 item 3): a job's
 * explanation (`QueueAdmin.explain`), whether a queue is a dead-letter queue (`listDeadLetterQueues`), and "Redrive
 * all" (`QueueAdmin.redrive`). Kept apart from DashboardApi so each stays one concern.
 */
@Injectable()
export class DashboardInspectApi {
  constructor(
    private readonly admin: QueueAdmin,
    @Inject(QUEUE_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  /** Why job `id` is where it is; 404 (JobNotFoundError) for an id that names no job. */
  async explain(id: string): Promise<JobExplanation> {
    try {
      return await this.admin.explain(id);
    } catch (error) {
      throw toHttpError(error, `Explaining job ${id}`);
    }
  }

  /** The dead-letter queue `queue` is (the queues naming it, its waiting dead letters), or null when none names it. */
  async deadLetterQueue(queue: string): Promise<DeadLetterQueueInfo | null> {
    try {
      // One grouped read of the processor declarations and the dead letters' counts: a queue page's poll.
      const all = await this.admin.listDeadLetterQueues();
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
