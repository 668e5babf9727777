import { FailureGroup } from '../interfaces/queue-info.interface';
import { FailureRow } from '../storage/queue-storage.interface';

/**
 * Failed jobs `getFailureGroups` reads, newest first: enough to show what is failing now, and a bounded read (at
 * most 2 kB of error each) whatever the queue's history holds.
 */
export const FAILURE_SAMPLE = 1000;

/**
 * The library stores an error as JSON that starts with its name and its message (`{"name":"…","message":"…",…`):
 * both string literals are read from the head alone, even when the stack and earlier errors after them were cut off.
 */
const LEADING_FIELDS = /^\{"name":("(?:[^"\\]|\\.)*"),"message":("(?:[^"\\]|\\.)*)("?)/;

/** The failures of `rows` grouped by error (name and message), most failed first, then newest first; at most `limit`. */
export function groupFailures(rows: FailureRow[], limit: number): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const row of rows) {
    const { name, message } = errorOf(row.errorHead);
    const key = `${name}\u0000${message}`;
    const group = groups.get(key);
    // Rows come newest first: the first row of a group is its newest failure.
    if (group) group.count += 1;
    else groups.set(key, { name, message, count: 1, lastFailedAt: new Date(row.finishedAt), sampleJobId: row.id });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || b.lastFailedAt.getTime() - a.lastFailedAt.getTime()).slice(0, limit);
}

/** The name and message of a stored error's head: the library's JSON, or any other text as a message of its own. */
function errorOf(head: string | null): { name: string; message: string } {
  if (head === null) return { name: 'Error', message: '' };
  const whole = parseWhole(head);
  if (whole) return whole;
  const match = LEADING_FIELDS.exec(head);
  if (match) {
    const name = decode(match[1]);
    // An unclosed literal is a message cut by the head's length: decoded up to its last whole escape.
    const message = match[3] === '"' ? decode(match[2] + '"') : decode(match[2].replace(/\\[^"]{0,5}$/, '') + '"');
    if (name !== null && message !== null) return { name, message: match[3] === '"' ? message : `${message}…` };
  }
  // Written by another tool (or not JSON at all): the text is the message, cut as the head was.
  return { name: 'Error', message: head.slice(0, 500) };
}

function parseWhole(head: string): { name: string; message: string } | null {
  try {
    const parsed = JSON.parse(head) as { name?: unknown; message?: unknown };
    if (typeof parsed !== 'object' || parsed === null) return null;
    return {
      name: typeof parsed.name === 'string' ? parsed.name : 'Error',
      message: typeof parsed.message === 'string' ? parsed.message : '',
    };
  } catch {
    return null;
  }
}

function decode(literal: string): string | null {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}
