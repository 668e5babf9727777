import { CliUsageError } from '../errors/cli-usage.error';
import { DatabaseFileMissingError } from '../errors/database-file-missing.error';
import { DatabaseOpenError } from '../errors/database-open.error';
import { DriverNotInstalledError } from '../errors/driver-not-installed.error';
import { ForeignSchemaError } from '../errors/foreign-schema.error';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidJobStateError } from '../errors/invalid-job-state.error';
import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import { InvalidQueueNameError } from '../errors/invalid-queue-name.error';
import { JobKeyConflictError } from '../errors/job-key-conflict.error';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { MigrationLockTimeoutError } from '../errors/migration-lock-timeout.error';
import { NotAQueueDatabaseError } from '../errors/not-a-queue-database.error';
import { PromoteRefusedError } from '../errors/promote-refused.error';
import { QueueNotFoundError } from '../errors/queue-not-found.error';
import { SchemaOutdatedError } from '../errors/schema-outdated.error';
import { SchemaTooNewError } from '../errors/schema-too-new.error';
import { StorageError } from '../errors/storage.error';
import { BackupNotSupportedError } from '../errors/backup-not-supported.error';
import { UnsupportedDriverError } from '../errors/unsupported-driver.error';
import { EXIT_CODES } from './exit-codes';

type ErrorClass = abstract new (...args: never[]) => Error;

/** Each typed error the CLI expects, with its exit code: a lookup, not a chain of ifs. */
const CODES: [ErrorClass, number][] = [
  [CliUsageError, EXIT_CODES.usage],
  [InvalidArgumentError, EXIT_CODES.usage],
  [InvalidQueueNameError, EXIT_CODES.usage],
  [InvalidModuleOptionsError, EXIT_CODES.usage],
  [BackupNotSupportedError, EXIT_CODES.usage],
  [DatabaseFileMissingError, EXIT_CODES.database],
  [NotAQueueDatabaseError, EXIT_CODES.database],
  [DatabaseOpenError, EXIT_CODES.database],
  [SchemaTooNewError, EXIT_CODES.database],
  [SchemaOutdatedError, EXIT_CODES.database],
  [ForeignSchemaError, EXIT_CODES.database],
  [MigrationLockTimeoutError, EXIT_CODES.database],
  [DriverNotInstalledError, EXIT_CODES.database],
  [UnsupportedDriverError, EXIT_CODES.database],
  [StorageError, EXIT_CODES.database],
  [JobNotFoundError, EXIT_CODES.notFound],
  [QueueNotFoundError, EXIT_CODES.notFound],
  [InvalidJobStateError, EXIT_CODES.refused],
  [JobKeyConflictError, EXIT_CODES.refused],
  [PromoteRefusedError, EXIT_CODES.refused],
];

/** The exit code for an error a command threw: its class's, or `failed` for anything unexpected. */
export function exitCodeOf(error: unknown): number {
  for (const [type, code] of CODES) if (error instanceof type) return code;
  return EXIT_CODES.failed;
}

/**
 * The one line printed for an error: its class and message, on one line (a message's own line breaks are joined).
 * The stack only with `--debug`: an operator reads the line, a bug report wants the stack.
 */
export function describeError(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack) return error.stack;
  const line = error instanceof Error ? `${error.name}: ${error.message}` : `Error: ${String(error)}`;
  return `error: ${line.replace(/\s*\n\s*/g, ' ')}`;
}
