import { JobNotFoundError } from '../../errors/job-not-found.error';
import { CliCommand } from '../cli-command';
import { isoTime, jobIdPositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

export const JOB_COMMAND: CliCommand = {
  name: 'job',
  summary: 'one job with its whole state, why it is there, flow and log lines',
  help: `Usage: nestjs-sqlite-queue job <id> [--json] <database>
  Everything stored about the job: status, attempts, times, data, result, error, progress, its flow, its log,
  and why it is where it is (QueueAdmin.explain(): reason, until when, a sentence; no processor runs in the CLI,
  so a global concurrency limit, which only a processor declares, is not seen).
  --json   one JSON object: QueueAdmin.getJob() with the log lines as "logs" and QueueAdmin.explain() as "explain"`,
  options: { json: { type: 'boolean' } },
  usesDatabase: true,
  readOnly: true,
  async run(context) {
    const id = jobIdPositional('job', context.positionals);
    const { admin } = await context.open();
    const [job, logs] = await Promise.all([admin.getJob(id), admin.getJobLogs(id)]);
    if (!job) throw new JobNotFoundError(id);
    const why = await admin.explain(id);
    if (context.values.json === true) {
      context.print(JSON.stringify({ ...job, logs: logs ?? [], explain: why }, null, 2));
      return EXIT_CODES.ok;
    }
    const json = (value: unknown) => JSON.stringify(value);
    const lines = [
      `job ${job.id}${job.name ? ` (${job.name})` : ''} in queue ${job.queue}: ${job.status}`,
      `  why ${why.reason}${why.until ? ` until ${isoTime(why.until)}` : ''}: ${why.detail}`,
      `  priority ${job.priority}, attempts ${job.attempts}/${job.maxAttempts}, key ${job.key ?? '-'}`,
      `  created ${isoTime(job.createdAt)}, runs at ${isoTime(job.runAt)}, started ${isoTime(job.startedAt)}, finished ${isoTime(job.finishedAt)}`,
      ...(job.lockedBy ? [`  held by ${job.lockedBy} until ${isoTime(job.leaseUntil)}`] : []),
      `  data ${json(job.data)}`,
      ...(job.result !== null ? [`  result ${json(job.result)}`] : []),
      ...(job.progress !== null ? [`  progress ${json(job.progress)}`] : []),
      ...(job.error ? [`  error ${job.error.name}: ${job.error.message}`] : []),
      ...(job.flow ? [`  flow ${json(job.flow)}`] : []),
      ...(logs && logs.length > 0 ? ['  log:', ...logs.map((line) => `    ${line}`)] : []),
    ];
    context.print(lines.join('\n'));
    return EXIT_CODES.ok;
  },
};
