import { QueueError } from './queue.error';

/**
 * The command line of `nestjs-sqlite-queue` cannot be run as given: an unknown command or option, a missing or
 * malformed argument. The CLI prints it on one line with the command's `--help` and exits with code 2; nothing is
 * opened or written.
 */
export class CliUsageError extends QueueError {
  constructor(
    /** The command it concerns (`jobs`), or `nestjs-sqlite-queue` for the command line as a whole. */
    readonly command: string,
    reason: string,
  ) {
    super(`${command}: ${reason} (see nestjs-sqlite-queue ${command === 'nestjs-sqlite-queue' ? '' : `${command} `}--help)`);
  }
}
