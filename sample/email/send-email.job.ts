/** Name of the queue that sends e-mail. */
export const EMAIL_QUEUE = 'email';

/** Payload of an `email` job. Kept small and JSON-safe: it is stored as JSON in SQLite. */
export interface SendEmailJob {
  to: string;
  template: 'newsletter' | 'password-reset' | 'welcome-follow-up';
}

/** What the processor stores as the job's result. */
export interface SendEmailResult {
  messageId: string;
}
