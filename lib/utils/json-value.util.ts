/** Where a value stops being plain JSON, and why. */
export interface JsonProblem {
  /** Property path from the root, e.g. `data.items[2].price`. */
  path: string;
  /** Why that value would not come back unchanged, e.g. `is a BigInt, which JSON cannot represent`. */
  reason: string;
}

/**
 * Deepest nesting of objects and arrays a job's data or result may have. Far deeper values overflow the call stack
 * of JSON.stringify (an untyped RangeError at about 5,000 levels); this bound leaves room for the caller's own stack.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * Returns the first place where `value` would not survive a JSON round-trip unchanged (a BigInt, a cycle, a
 * function, `undefined`, a class instance, a non-finite number, a hole), or null when it would. `root` names the
 * value in the path. Both ends of a job use it: data going in, results coming out.
 */
export function findJsonProblem(value: unknown, root: string): JsonProblem | null {
  // No set for primitives: a handler's result is checked on every completion.
  return valueProblem(value, root, undefined);
}

function valueProblem(value: unknown, path: string, ancestors: Set<object> | undefined): JsonProblem | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : { path, reason: `is ${value}, which JSON stores as null` };
    case 'undefined':
      return { path, reason: 'is undefined, which JSON drops' };
    case 'bigint':
      return { path, reason: 'is a BigInt, which JSON cannot represent (store it as a string)' };
    case 'function':
      return { path, reason: 'is a function, which JSON drops' };
    case 'symbol':
      return { path, reason: 'is a symbol, which JSON drops' };
    case 'object':
      return value === null ? null : objectProblem(value, path, ancestors);
  }
}

function objectProblem(value: object, path: string, parents: Set<object> | undefined): JsonProblem | null {
  const ancestors = parents ?? new Set<object>();
  if (ancestors.has(value)) return { path, reason: 'refers back to one of its parents (a cycle)' };
  // The ancestors are exactly the enclosing objects and arrays: their number is the depth.
  if (ancestors.size >= MAX_JSON_DEPTH) {
    const shown = path.length > 60 ? `${path.slice(0, 60)}…` : path;
    return { path: shown, reason: `is nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays` };
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return { path: `${path}[${i}]`, reason: 'is a hole in a sparse array, which JSON turns into null' };
      const problem = valueProblem(value[i], `${path}[${i}]`, ancestors);
      if (problem) return problem;
    }
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      const kind = (value.constructor as { name?: string } | undefined)?.name ?? 'object';
      const hint = value instanceof Date ? ' (pass date.toISOString() or a timestamp)' : '';
      return { path, reason: `is a ${kind}, which JSON does not round-trip${hint}` };
    }
    for (const key of Object.keys(value)) {
      const problem = valueProblem((value as Record<string, unknown>)[key], `${path}.${key}`, ancestors);
      if (problem) return problem;
    }
  }
  ancestors.delete(value);
  return null;
}
