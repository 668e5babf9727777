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

/**
 * The rows a search of `query` reads: `SEARCH_SCAN_ROWS`, or the contract test's smaller bound. Written into the
 * statement's text (as the constant always was), so it must be a whole positive number: anything else is the default.
 */
export function searchScanRows(query: { searchScanRows?: number }): number {
  const rows = query.searchScanRows;
  return rows !== undefined && Number.isSafeInteger(rows) && rows > 0 ? rows : SEARCH_SCAN_ROWS;
}

/**
 * The text as each column may hold it, for a look-up with `instr` / `strpos` (never LIKE: no character is a pattern).
 * The columns that store JSON (data, error) match when their stored text holds the text as typed, so `"n":2` finds
 * `{"n":2}` (structure, keys and values alike), OR holds it as JSON writes it inside a string, so `say "hi"` finds
 * the value `say "hi"`, stored `"say \"hi\""`. The columns of plain text (name, unique key) match the text as typed.
 */
export interface SearchNeedles {
  /** As typed: for every column. */
  plain: string;
  /**
   * As JSON writes it inside a string (`"` → `\"`, `\` → `\\`, control characters escaped): a second look-up in
   * the JSON columns, needed only when it differs from `plain` (the text holds a quote, backslash or control character).
   */
  json: string;
}

/** The needles of a validated search text. */
export function searchNeedles(text: string): SearchNeedles {
  return { plain: text, json: JSON.stringify(text).slice(1, -1) };
}
