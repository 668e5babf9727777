/**
 * The exit codes of `nestjs-sqlite-queue`, one meaning each, so a script can branch on them (docs/cli.md lists
 * them). Never renumbered: a released code keeps its meaning.
 */
export const EXIT_CODES = {
  /** The command did what it was asked. */
  ok: 0,
  /** An unexpected failure (a bug, a driver error with no better class): the message says what; `--debug` adds the stack. */
  failed: 1,
  /** The command line is wrong: unknown command or option, missing or malformed argument. Nothing was opened. */
  usage: 2,
  /** The database cannot be used: file missing, not a queue database, schema too new or outdated, server unreachable. */
  database: 3,
  /** The job or queue named does not exist. */
  notFound: 4,
  /** Refused by the state of things: a job in the wrong status, a key held by another job, `promote`'s refusals. */
  refused: 5,
} as const;

/** One of `EXIT_CODES`. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
