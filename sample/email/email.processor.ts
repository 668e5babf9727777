import { Job, Processor, WorkerHost } from '../../lib';
import { simulateWork } from '../common/simulate-work';
import { EMAIL_QUEUE, EmailJobName, SendEmailJob, SendEmailResult } from './send-email.job';

/** The template of each kind of e-mail: the job's name picks it. */
const TEMPLATES: Record<EmailJobName, string> = {
  newsletter: 'newsletter-2026-11',
  'password-reset': 'reset-link',
  'welcome-follow-up': 'welcome-day-2',
};

/**
 * Sends e-mail. Sending is I/O-bound (the time goes into waiting on the mail server), so many run at once.
 * This one uses the `WorkerHost` base class; the other processors implement `QueueProcessor` instead.
 */
@Processor(EMAIL_QUEUE, { concurrency: 32 })
export class EmailProcessor extends WorkerHost<SendEmailJob, SendEmailResult> {
  async process(job: Job<SendEmailJob>): Promise<SendEmailResult> {
    const template = TEMPLATES[job.name as EmailJobName];
    if (!template) throw new Error(`unknown e-mail job name ${JSON.stringify(job.name)}`);
    await simulateWork(2, 6, job.signal);
    if (job.name === 'password-reset') await job.log(`reset link sent to ${job.data.to}`);
    return { messageId: `<${job.id}.${template}@mail.example.com>` };
  }
}
