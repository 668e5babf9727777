import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { describeValue } from '../utils/validation.util';

/** Longest `getJobs({ search })` text: a look-up typed by a person, not a document (a longer text is refused). */
export const MAX_SEARCH_LENGTH = 200;

/**
 * The text of `getJobs(queue, { search })`, or undefined for no search. Refused with `InvalidArgumentError`: what is
 * not a string, the empty string (it would match every job: leave `search` out), more than `MAX_SEARCH_LENGTH`
 * characters, or a NUL (no stored text can hold one: data is JSON, which escapes it, and PostgreSQL's text refuses
 * it). Every other character is safe: the statements look the text up with `instr` / `strpos`, so `%`, `_`, quotes
 * and backslashes are plain characters, never patterns or SQL.
 */
export function searchText(search: unknown): string | undefined {
  if (search === undefined) return undefined;
  if (typeof search !== 'string') throw new InvalidArgumentError('getJobs', 'search', `must be a string, got ${describeValue(search)}`);
  if (search.length === 0) throw new InvalidArgumentError('getJobs', 'search', 'must not be empty (leave it out to list every job)');
  if (search.length > MAX_SEARCH_LENGTH) {
    throw new InvalidArgumentError('getJobs', 'search', `must be at most ${MAX_SEARCH_LENGTH} characters, got ${search.length}`);
  }
  if (search.includes('\0')) throw new InvalidArgumentError('getJobs', 'search', 'must not contain a NUL character (\\0)');
  return search;
}
