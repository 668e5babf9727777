/** Name of the queue that sends e-mail. */
export const EMAIL_QUEUE = 'email';

/**
 * The kinds of e-mail, as job names: one queue carries them all (as with BullMQ's `queue.add(name, data)`), and the
 * processor tells them apart by `job.name`.
 */
export type EmailJobName = 'newsletter' | 'password-reset' | 'welcome-follow-up';

/** Payload of an `email` job. Kept small and JSON-safe: it is stored as JSON in SQLite. */
export interface SendEmailJob {
  to: string;
}

/** What the processor stores as the job's result. */
export interface SendEmailResult {
  messageId: string;
}
