/** A stored error's `name: message` for a sentence, or the stored text itself when it is not the JSON the library writes. */
export function parseStoredError(stored: string | null): string | null {
  if (stored === null) return null;
  try {
    const parsed = JSON.parse(stored) as { name?: unknown; message?: unknown };
    const name = typeof parsed.name === 'string' ? parsed.name : 'Error';
    const message = typeof parsed.message === 'string' ? parsed.message : '';
    return `${name}: ${message}`.slice(0, 500);
  } catch {
    return stored.slice(0, 500);
  }
}
