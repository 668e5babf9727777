import { InvalidJobDataError } from '../errors/invalid-job-data.error';

/**
 * Serialises job data to JSON, refusing anything that would not come back identical: the handler must
 * see exactly what the producer enqueued, not a silently truncated copy. `root` names the value in errors.
 */
export function serializeJobData(queue: string, data: unknown, root = 'data'): string {
  assertJsonValue(queue, data, root, new Set());
  return JSON.stringify(data);
}

/**
 * Deepest nesting of objects and arrays job data may have. Far deeper data overflows the call stack of
 * JSON.stringify (an untyped RangeError at about 5,000 levels); this bound leaves room for the caller's own stack.
 */
export const MAX_JOB_DATA_DEPTH = 1000;

function assertJsonValue(queue: string, value: unknown, path: string, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidJobDataError(queue, path, `is ${value}, which JSON stores as null`);
      return;
    case 'undefined':
      throw new InvalidJobDataError(queue, path, 'is undefined, which JSON drops');
    case 'bigint':
      throw new InvalidJobDataError(queue, path, 'is a BigInt, which JSON cannot represent (store it as a string)');
    case 'function':
      throw new InvalidJobDataError(queue, path, 'is a function, which JSON drops');
    case 'symbol':
      throw new InvalidJobDataError(queue, path, 'is a symbol, which JSON drops');
    case 'object':
      if (value === null) return;
      assertJsonObject(queue, value, path, ancestors);
      return;
  }
}

function assertJsonObject(queue: string, value: object, path: string, ancestors: Set<object>): void {
  if (ancestors.has(value)) throw new InvalidJobDataError(queue, path, 'refers back to one of its parents (a cycle)');
  // The ancestors are exactly the enclosing objects and arrays: their number is the depth.
  if (ancestors.size >= MAX_JOB_DATA_DEPTH) {
    const shown = path.length > 60 ? `${path.slice(0, 60)}…` : path;
    throw new InvalidJobDataError(queue, shown, `is nested deeper than ${MAX_JOB_DATA_DEPTH} levels of objects and arrays`);
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new InvalidJobDataError(queue, `${path}[${i}]`, 'is a hole in a sparse array, which JSON turns into null');
      assertJsonValue(queue, value[i], `${path}[${i}]`, ancestors);
    }
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      const kind = value.constructor?.name ?? 'object';
      const hint = value instanceof Date ? ' (pass date.toISOString() or a timestamp)' : '';
      throw new InvalidJobDataError(queue, path, `is a ${kind}, which JSON does not round-trip${hint}`);
    }
    for (const key of Object.keys(value)) {
      assertJsonValue(queue, (value as Record<string, unknown>)[key], `${path}.${key}`, ancestors);
    }
  }
  ancestors.delete(value);
}
