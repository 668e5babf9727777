/**
 * The CLI's exit codes as docs/cli.md promises them: every error class its "Exit codes" table lists exits with that
 * row's code (read from the table itself, so a class added to the table is checked at once), and an error no row
 * names exits 1. What a real database makes a command throw is in cli.e2e-spec.ts and cli-read-only.e2e-spec.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as errors from '../lib/errors';
import { exitCodeOf } from '../lib/cli/cli-errors';
import { EXIT_CODES } from '../lib/cli/exit-codes';

/** The table's rows: code → the error classes named in its last column. */
function documentedClasses(): Map<number, string[]> {
  const text = readFileSync(join(__dirname, '..', 'docs', 'cli.md'), 'utf8');
  const section = text.slice(text.indexOf('## Exit codes'));
  const rows = new Map<number, string[]>();
  for (const line of section.split('\n')) {
    const match = /^\| (\d) \| [^|]+ \| ([^|]*) \|$/.exec(line);
    if (!match) continue;
    rows.set(
      Number(match[1]),
      [...match[2].matchAll(/`([A-Za-z]+Error)`/g)].map((found) => found[1]),
    );
  }
  return rows;
}

/** An instance of the class (its constructor's arguments differ class by class; the mapping reads its type only). */
function instanceOf(name: string): Error {
  const type = (errors as Record<string, unknown>)[name] as { prototype: Error } | undefined;
  if (!type) throw new Error(`docs/cli.md names ${name}, which lib/errors does not export`);
  return Object.create(type.prototype) as Error;
}

describe('the CLI exit codes of docs/cli.md', () => {
  const rows = documentedClasses();

  it('the table has the rows 2 to 5, each naming its classes', () => {
    expect([...rows.keys()].filter((code) => code >= 2)).toEqual([2, 3, 4, 5]);
    expect(rows.get(EXIT_CODES.refused)).toEqual(['InvalidJobStateError', 'JobKeyConflictError', 'PromoteRefusedError']);
    expect([...rows.values()].flat().length).toBeGreaterThanOrEqual(18);
  });

  it.each([...documentedClasses()].flatMap(([code, names]) => names.map((name) => [name, code] as const)))('%s exits %i', (name, code) => {
    expect(exitCodeOf(instanceOf(name))).toBe(code);
  });

  it('an error no row names exits 1: a plain Error, a TypeError, a thrown string, a library error the table leaves out', () => {
    for (const error of [new Error('x'), new TypeError('y'), 'z', undefined, new errors.ScheduleNotFoundError('q', 'n')]) {
      expect(exitCodeOf(error)).toBe(EXIT_CODES.failed);
    }
  });
});
