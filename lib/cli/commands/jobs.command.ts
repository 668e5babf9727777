import { searchText } from '../../admin/search-text';
import { CliUsageError } from '../../errors/cli-usage.error';
import { InvalidArgumentError } from '../../errors/invalid-argument.error';
import { QueueNotFoundError } from '../../errors/queue-not-found.error';
import { closestName } from '../../utils/closest-name.util';
import { JOB_STATUSES, JobStatus } from '../../interfaces/job-info.interface';
import { CliCommand } from '../cli-command';
import { integerOption, isoTime, onePositional, table } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

export const JOBS_COMMAND: CliCommand = {
  name: 'jobs',
  summary: 'jobs of a queue, newest first',
  help: `Usage: nestjs-sqlite-queue jobs <queue> [--status s] [--search text] [--limit n] [--json] <database>
  --status s       only jobs of that status: ${JOB_STATUSES.join(', ')}
  --search text    only jobs whose data, name, key or last error contain the text (plain text, case folded;
                   1 to 200 characters; reads the database's newest 100,000 jobs)
  --limit n        at most n jobs, 1 to 1000 (default 50)
  --json           a JSON array of the jobs as QueueAdmin.getJobs() returns them`,
  options: { status: { type: 'string' }, search: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  usesDatabase: true,
  readOnly: true,
  async run(context) {
    const queue = onePositional('jobs', context.positionals, 'a queue name');
    const status = context.values.status;
    if (status !== undefined && !JOB_STATUSES.includes(status as JobStatus)) {
      throw new CliUsageError('jobs', `--status must be one of ${JOB_STATUSES.join(', ')}, got ${JSON.stringify(status)}`);
    }
    const search = searchOption(context.values.search);
    const limit = integerOption('jobs', 'limit', context.values.limit, 50, 1, 1000);
    const { admin } = await context.open();
    const jobs = await admin.getJobs(queue, { status: status as JobStatus | undefined, search, limit });
    // No job may mean a mistyped name: refused as `pause` and `clean` refuse it (exit 4), not "no job" (exit 0).
    if (jobs.length === 0 && !(await admin.hasQueue(queue))) {
      const known = (await admin.listQueues()).map((info) => info.name);
      throw new QueueNotFoundError(queue, 'jobs', closestName(queue, known));
    }
    if (context.values.json === true) {
      context.print(JSON.stringify(jobs, null, 2));
      return EXIT_CODES.ok;
    }
    if (jobs.length === 0) {
      const matching = search === undefined ? '' : ` matching ${JSON.stringify(search)}`;
      context.print(`no ${status ?? ''}${status ? ' ' : ''}job${matching} in queue ${queue}`);
      return EXIT_CODES.ok;
    }
    const rows = jobs.map((job) => [
      job.id,
      job.name ?? '-',
      job.status,
      String(job.priority),
      `${job.attempts}/${job.maxAttempts}`,
      isoTime(job.runAt),
      isoTime(job.finishedAt),
      job.key ?? '-',
      job.error ? job.error.message.slice(0, 60).replace(/\s+/g, ' ') : '',
    ]);
    context.print(table(['ID', 'NAME', 'STATUS', 'PRIORITY', 'ATTEMPTS', 'RUN AT', 'FINISHED', 'KEY', 'ERROR'], rows));
    return EXIT_CODES.ok;
  },
};

/**
 * `--search`, checked by the library's own rule before the database is opened (a bad text is a bad command line:
 * exit 2, nothing opened), and reported as the CLI's option rather than as `getJobs`' argument.
 */
function searchOption(value: string | boolean | undefined): string | undefined {
  try {
    return searchText(value);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    throw new CliUsageError('jobs', error.message.replace(/^QueueAdmin\.getJobs\(\): search/, '--search'));
  }
}
