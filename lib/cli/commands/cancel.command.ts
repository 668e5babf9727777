import { CliCommand } from '../cli-command';
import { jobIdPositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

export const CANCEL_COMMAND: CliCommand = {
  name: 'cancel',
  summary: 'cancel a pending or running job',
  help: `Usage: nestjs-sqlite-queue cancel <id> [--cascade] <database>
  A pending job never runs; a running one has its signal aborted at its worker's next heartbeat (QueueAdmin.cancel).
  --cascade   cancel every live descendant of the job in its flow too`,
  options: { cascade: { type: 'boolean' } },
  usesDatabase: true,
  async run(context) {
    const id = jobIdPositional('cancel', context.positionals);
    const { admin } = await context.open();
    await admin.cancel(id, { cascade: context.values.cascade === true });
    context.print(`job ${id}: cancelled`);
    return EXIT_CODES.ok;
  },
};
