import { CliUsageError } from '../errors/cli-usage.error';

/** The one positional argument a command takes (`jobs <queue>`), refusing none or more. */
export function onePositional(command: string, positionals: string[], what: string): string {
  if (positionals.length === 0) throw new CliUsageError(command, `needs ${what}`);
  if (positionals.length > 1) throw new CliUsageError(command, `takes one ${what}, got ${positionals.length} arguments`);
  return positionals[0];
}

/**
 * The one job id a command takes (`job <id>`): ids are positive integers on every backend, so anything else is a
 * bad command line (exit 2), said before the database is opened, not a job that was looked for and not found.
 */
export function jobIdPositional(command: string, positionals: string[]): string {
  const id = onePositional(command, positionals, 'a job id');
  if (!/^[1-9]\d{0,18}$/.test(id)) throw new CliUsageError(command, `a job id is a positive integer, got ${JSON.stringify(id)}`);
  return id;
}

/** Refuses positional arguments where a command takes none. */
export function noPositional(command: string, positionals: string[]): void {
  if (positionals.length > 0) throw new CliUsageError(command, `takes no argument, got ${JSON.stringify(positionals[0])}`);
}

/** An integer option within bounds, or `fallback` when absent. */
export function integerOption(command: string, option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const parsed = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(Number.isSafeInteger(parsed) && parsed >= min && parsed <= max)) {
    throw new CliUsageError(command, `--${option} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A duration such as `7d`, `12h`, `30m`, `45s`, `500ms` (one number, one unit), in ms. */
export function durationOption(command: string, option: string, value: unknown): number {
  const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(value) : null;
  if (!match)
    throw new CliUsageError(command, `--${option} must be a duration such as 7d, 12h, 30m, 45s or 500ms, got ${JSON.stringify(value)}`);
  return Math.round(Number(match[1]) * UNITS[match[2]]);
}

/** A date for a human: ISO 8601 in UTC, or `-` for none. */
export function isoTime(at: Date | number | null | undefined): string {
  if (at === null || at === undefined) return '-';
  const date = typeof at === 'number' ? new Date(at) : at;
  return Number.isFinite(date.getTime()) ? date.toISOString() : '-';
}

/** Rows as aligned columns under a header. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
