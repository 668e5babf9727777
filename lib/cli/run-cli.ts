import { ParseArgsConfig, parseArgs } from 'node:util';
import { CliUsageError } from '../errors/cli-usage.error';
import { CliCommand, CliContext } from './cli-command';
import { CliDatabase, openCliDatabase } from './cli-database';
import { describeError, exitCodeOf } from './cli-errors';
import { CLI_COMMANDS } from './commands';
import { EXIT_CODES } from './exit-codes';
import { setCliLogSink } from './cli-logger';

/** The program's name, as `npx` runs it (the package's `bin`). */
export const CLI_NAME = 'nestjs-sqlite-queue';

/** Where the CLI writes: the process's streams in `main.ts`, buffers in unit tests. */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Options every command that opens a database takes. */
const DATABASE_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  database: { type: 'string' },
  driver: { type: 'string' },
  postgres: { type: 'string' },
  schema: { type: 'string' },
};

const COMMON_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  help: { type: 'boolean', short: 'h' },
  debug: { type: 'boolean' },
};

const DATABASE_HELP = `Database (one of):
  --database <file>      a SQLite queue file (never created: it must exist)
    --driver <d>         sqlite3 or better-sqlite3 (default: the one installed, as forRoot picks it)
  --postgres <url>       a PostgreSQL server, postgres://user:pass@host:5432/db
    --schema <s>         the queue's schema (default nest_queue)
Common: --help, --debug (print the stack of an unexpected error)`;

/** The whole program's help: the commands, and the exit codes a script can rely on. */
function programHelp(): string {
  const width = Math.max(...CLI_COMMANDS.map((command) => command.name.length));
  return [
    `Usage: ${CLI_NAME} <command> [options]    (${CLI_NAME} <command> --help for one command)`,
    '',
    'Commands:',
    ...CLI_COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    DATABASE_HELP,
    '',
    'Exit codes: 0 done, 1 unexpected failure, 2 bad command line, 3 database unusable (missing, not a queue',
    'database, schema too new or outdated, server unreachable), 4 job or queue not found, 5 refused by the state',
    '(wrong job status, key held, promote refused).',
  ].join('\n');
}

function commandHelp(command: CliCommand): string {
  return [command.help, '', command.usesDatabase ? DATABASE_HELP : 'Common: --help, --debug'].join('\n');
}

/**
 * Runs one command line (without `node` and the script) and resolves with the exit code: never throws, never
 * prints a stack unless `--debug` asks. The database is opened by the command when it needs it and always closed.
 */
export async function runCli(argv: string[], output: CliOutput): Promise<number> {
  const debug = argv.includes('--debug');
  setCliLogSink(output.stderr, debug);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    output.stdout(`${programHelp()}\n`);
    return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
  }
  const command = CLI_COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    output.stderr(`${describeError(new CliUsageError(CLI_NAME, `unknown command ${JSON.stringify(name)}`), false)}\n`);
    return EXIT_CODES.usage;
  }
  let database: Promise<CliDatabase> | undefined;
  try {
    const options = { ...COMMON_OPTIONS, ...(command.usesDatabase ? DATABASE_OPTIONS : {}), ...command.options };
    const parsed = parseCommandLine(command, rest, options);
    if (parsed.values.help === true) {
      output.stdout(`${commandHelp(command)}\n`);
      return EXIT_CODES.ok;
    }
    const context: CliContext = {
      ...parsed,
      open: () => {
        database ??= openCliDatabase(command.name, parsed.values as Record<string, string | undefined>, command.readOnly === true);
        return database;
      },
      print: (text) => output.stdout(`${text}\n`),
      notice: (text) => output.stderr(`${text}\n`),
    };
    return await command.run(context);
  } catch (error) {
    output.stderr(`${describeError(error, debug)}\n`);
    return exitCodeOf(error);
  } finally {
    if (database) await (await database.catch(() => undefined))?.close().catch(() => undefined);
  }
}

/** `util.parseArgs`, strict, its errors turned into one usage line naming the command. */
function parseCommandLine(command: CliCommand, args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals: true });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    throw new CliUsageError(command.name, (error as Error).message.replace(/\. To specify .*$/s, ''));
  }
}
