import type { ParseArgsConfig } from 'node:util';
import type { CliDatabase } from './cli-database';

/** What `parseArgs` made of the command line: option values by name, and the positional arguments. */
export interface ParsedCommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** What a command is given to run: its parsed line, the database it opens on demand, and where it prints. */
export interface CliContext extends ParsedCommandLine {
  /** Opens the database the global options name (once; closed by the runner after the command). */
  open(): Promise<CliDatabase>;
  /** Prints one line (or a block) on stdout. */
  print(text: string): void;
  /** Prints a progress or notice line on stderr, so stdout stays the command's output. */
  notice(text: string): void;
}

/** One command of the CLI: one file of `commands/` each. */
export interface CliCommand {
  /** The word after `nestjs-sqlite-queue`. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The usage line(s) and what each argument means, shown by `--help`. */
  readonly help: string;
  /** Options beyond the global ones, in `util.parseArgs` form. */
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Whether the command reads a database through the global `--database` / `--postgres` (promote has its own). */
  readonly usesDatabase: boolean;
  /** Whether the command only reads: a SQLite file is then opened read-only, and not one byte of it changes. */
  readonly readOnly?: boolean;
  /** Runs the command; resolves with its exit code (a thrown error is printed and mapped by the runner). */
  run(context: CliContext): Promise<number>;
}
