import { CliCommand } from '../cli-command';
import { onePositional } from '../cli-arguments';
import { EXIT_CODES } from '../exit-codes';

export const BACKUP_COMMAND: CliCommand = {
  name: 'backup',
  summary: 'write a consistent copy of a SQLite queue file, safe while it runs',
  help: `Usage: nestjs-sqlite-queue backup <path> --database <file>
  Writes a consistent copy of the live SQLite database to <path>, a new file (QueueAdmin.backup, VACUUM INTO):
  safe while workers run. Never overwrites. On PostgreSQL use pg_dump.`,
  options: {},
  usesDatabase: true,
  async run(context) {
    const path = onePositional('backup', context.positionals, 'the path of the copy');
    const { admin } = await context.open();
    const started = Date.now();
    await admin.backup(path);
    context.print(`backup written to ${path} in ${Date.now() - started} ms`);
    return EXIT_CODES.ok;
  },
};
