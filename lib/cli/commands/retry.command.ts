import { CliUsageError } from '../../errors/cli-usage.error';
import { CliCommand } from '../cli-command';
import { jobIdPositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

export const RETRY_COMMAND: CliCommand = {
  name: 'retry',
  summary: 'run a failed or cancelled job again, or every failed job of a queue',
  help: `Usage: nestjs-sqlite-queue retry <id> <database>
       nestjs-sqlite-queue retry --failed <queue> <database>
  <id>              a failed or cancelled job, run again with a fresh set of attempts (QueueAdmin.retry)
  --failed <queue>  every failed job of the queue (QueueAdmin.retryAll); jobs whose key a live job holds are skipped`,
  options: { failed: { type: 'string' } },
  usesDatabase: true,
  async run(context) {
    const queue = context.values.failed as string | undefined;
    if ((queue === undefined) === (context.positionals.length === 0) || context.positionals.length > 1) {
      throw new CliUsageError('retry', 'needs one job id, or --failed <queue>');
    }
    // A malformed id is a bad command line, said before anything is opened.
    const id = queue === undefined ? jobIdPositional('retry', context.positionals) : undefined;
    const { admin } = await context.open();
    if (queue === undefined) {
      await admin.retry(id!);
      context.print(`job ${id}: pending again`);
      return EXIT_CODES.ok;
    }
    const { retried, skipped } = await admin.retryAll(queue, { report: true });
    context.print(`queue ${queue}: ${retried.length} failed job(s) pending again${skipped.length ? `, ${skipped.length} skipped` : ''}`);
    for (const job of skipped) context.print(`  skipped ${job.id}: key ${JSON.stringify(job.key)} held by job ${job.heldBy}`);
    return EXIT_CODES.ok;
  },
};
