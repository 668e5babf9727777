import { CliUsageError } from '../../errors/cli-usage.error';
import { JobStatus } from '../../interfaces/job-info.interface';
import { CliCommand } from '../cli-command';
import { durationOption, onePositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

const FINISHED: JobStatus[] = ['completed', 'failed', 'cancelled'];

export const CLEAN_COMMAND: CliCommand = {
  name: 'clean',
  summary: 'delete finished jobs of a queue older than a duration',
  help: `Usage: nestjs-sqlite-queue clean <queue> --older-than <duration> [--status s,s] <database>
  --older-than d   finished at least this long ago: 7d, 12h, 30m, 45s, 500ms (required)
  --status s,s     which statuses (default completed,failed,cancelled; pending counts from creation)`,
  options: { 'older-than': { type: 'string' }, status: { type: 'string' } },
  usesDatabase: true,
  async run(context) {
    const queue = onePositional('clean', context.positionals, 'a queue name');
    if (context.values['older-than'] === undefined) throw new CliUsageError('clean', 'needs --older-than, such as --older-than 7d');
    const olderThan = durationOption('clean', 'older-than', context.values['older-than']);
    const status = typeof context.values.status === 'string' ? (context.values.status.split(',') as JobStatus[]) : FINISHED;
    const { admin } = await context.open();
    const removed = await admin.clean(queue, { status, olderThan });
    context.print(`queue ${queue}: ${removed} job(s) deleted`);
    return EXIT_CODES.ok;
  },
};
