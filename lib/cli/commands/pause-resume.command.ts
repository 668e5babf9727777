import { CliCommand } from '../cli-command';
import { onePositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

function pauseOrResume(name: 'pause' | 'resume'): CliCommand {
  const pausing = name === 'pause';
  return {
    name,
    summary: pausing ? 'stop claims of a queue in every process (running jobs finish)' : 'let a paused queue be claimed again',
    help: `Usage: nestjs-sqlite-queue ${name} <queue> <database>
  ${pausing ? 'Stops claims of the queue in every process sharing the database; running jobs finish' : 'Lets the paused queue be claimed again'} (QueueAdmin.${name}).`,
    options: {},
    usesDatabase: true,
    async run(context) {
      const queue = onePositional(name, context.positionals, 'a queue name');
      const { admin } = await context.open();
      await (pausing ? admin.pause(queue) : admin.resume(queue));
      context.print(`queue ${queue}: ${pausing ? 'paused' : 'resumed'}`);
      return EXIT_CODES.ok;
    },
  };
}

export const PAUSE_COMMAND = pauseOrResume('pause');
export const RESUME_COMMAND = pauseOrResume('resume');
