import { Logger } from '@nestjs/common';
import { DashboardRedaction, DashboardRedactionSource } from './interfaces/queue-dashboard-options.interface';

/** A value as the dashboard shows it: the value (maybe rewritten), or hidden. */
export type Shown = { hidden: false; value: unknown } | { hidden: true };

const logger = new Logger('JobQueue');

/**
 * Applies one redaction rule. A rule that throws hides the value (failing open would leak what the app meant to
 * keep back) and is logged with the job or schedule it met.
 */
export function redactValue(rule: DashboardRedaction | undefined, value: unknown, source: DashboardRedactionSource, what: string): Shown {
  if (rule === undefined || rule === false || value === null) return { hidden: false, value };
  if (rule === true) return { hidden: true };
  try {
    return { hidden: false, value: rule(value, source) };
  } catch (error) {
    const owner = 'id' in source ? `job ${source.id}` : `schedule "${source.name}"`;
    logger.error(`Dashboard redact.${what} threw for ${owner} of queue ${source.queue}; the value is hidden: ${String(error)}`);
    return { hidden: true };
  }
}
