import { Job, Processor, WorkerHost } from '../../lib';
import { simulateWork } from '../common/simulate-work';
import { EMAIL_QUEUE, SendEmailJob, SendEmailResult } from './send-email.job';

/**
 * Sends e-mail. Sending is I/O-bound (the time goes into waiting on the mail server), so many run at once; the mail
 * provider allows 1,000 messages a second per account, so the queue has a limiter, which holds for every process
 * running this app against the same database (the 1,545 e-mails take about two seconds).
 * This one uses the `WorkerHost` base class; the other processors implement `QueueProcessor` instead.
 */
@Processor(EMAIL_QUEUE, { concurrency: 32, limiter: { max: 1000, duration: 1000 } })
export class EmailProcessor extends WorkerHost<SendEmailJob, SendEmailResult> {
  async process(job: Job<SendEmailJob>): Promise<SendEmailResult> {
    await simulateWork(2, 6, job.signal);
    return { messageId: `<${job.id}.${job.data.template}@mail.example.com>` };
  }
}
