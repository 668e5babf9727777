/**
 * What both backends' search statements (`sql/search.sql.ts`) share: how deep a search reads, and the two forms of
 * the text it looks for.
 */

/**
 * Most rows a search reads: the newest this many jobs of the table (by id, every queue), of which it keeps those of the
 * queue (and status, and name) that hold the text. The bound is on rows read, not rows matched, so a search costs
 * the same on a table of any size and with any filter: no index serves "contains" for all four columns, and one that
 * could (FTS5 trigram, pg_trgm) is paid by every enqueue (measured in bench/search-cost.js, bench/RESULTS.md).
 * A job older than the newest 100,000 of the database is not found: keep retention on, or read older ones by status.
 */
export const SEARCH_SCAN_ROWS = 100_000;

/** The text as each column stores it, for a look-up with `instr` / `strpos` (never LIKE: no character is a pattern). */
export interface SearchNeedles {
  /** As typed: for the columns that store plain text (name, unique key). */
  plain: string;
  /**
   * As JSON writes it inside a string (`"` → `\"`, `\` → `\\`, control characters escaped): for the columns that
   * store JSON (data, error), so a quote or backslash in the text finds the value that holds it.
   */
  json: string;
}

/** The needles of a validated search text. */
export function searchNeedles(text: string): SearchNeedles {
  return { plain: text, json: JSON.stringify(text).slice(1, -1) };
}
