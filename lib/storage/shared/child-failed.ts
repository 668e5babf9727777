/**
 * The error a flow parent records when one of its children ended failed or cancelled and the parent's policy is
 * `'fail'`: written by each backend's flow trigger, in SQL. One wording, kept here.
 */

/** The `name` of the recorded error (= ChildFailedError.name in lib/errors). */
export const CHILD_FAILED_ERROR_NAME = 'ChildFailedError';

/**
 * The SQL expression of the recorded error as a JSON object. `child` is the trigger's row alias of the child (NEW),
 * `attempts` the parent's column. `jsonObject`: `json_object` (SQLite) or `json_build_object` (PostgreSQL).
 */
export function childFailedErrorSql(jsonObject: 'json_object' | 'json_build_object', child: string): string {
  return childFailedErrorOf(jsonObject, { id: `${child}.id`, queue: `${child}.queue`, status: `${child}.status` });
}

/** The SQL expressions that name the child in the recorded error. */
export interface ChildFailedParts {
  id: string;
  queue: string;
  status: string;
}

/**
 * The recorded error as `childFailedErrorSql` writes it, over any expressions of the child's id, queue and status
 * (a variable or a column of a walk up the flow, where the child is not a row alias).
 */
export function childFailedErrorOf(jsonObject: 'json_object' | 'json_build_object', child: ChildFailedParts): string {
  return `${jsonObject}(
        'name', '${CHILD_FAILED_ERROR_NAME}',
        'message', 'Child job ' || ${child.id} || ' (queue ' || ${child.queue} || ') ended ' || ${child.status} || ' before this parent could run',
        'attempt', attempts)`;
}
