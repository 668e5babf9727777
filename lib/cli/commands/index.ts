import { CliCommand } from '../cli-command';
import { BACKUP_COMMAND } from './backup.command';
import { CANCEL_COMMAND } from './cancel.command';
import { CLEAN_COMMAND } from './clean.command';
import { JOB_COMMAND } from './job.command';
import { JOBS_COMMAND } from './jobs.command';
import { MIGRATE_COMMAND } from './migrate.command';
import { PAUSE_COMMAND, RESUME_COMMAND } from './pause-resume.command';
import { PROMOTE_COMMAND } from './promote.command';
import { RETRY_COMMAND } from './retry.command';
import { STATUS_COMMAND } from './status.command';

/** Every command, in the order `--help` lists them. */
export const CLI_COMMANDS: readonly CliCommand[] = [
  STATUS_COMMAND,
  JOBS_COMMAND,
  JOB_COMMAND,
  RETRY_COMMAND,
  CANCEL_COMMAND,
  PAUSE_COMMAND,
  RESUME_COMMAND,
  CLEAN_COMMAND,
  MIGRATE_COMMAND,
  BACKUP_COMMAND,
  PROMOTE_COMMAND,
];
