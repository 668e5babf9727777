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
  return `${jsonObject}(
        'name', '${CHILD_FAILED_ERROR_NAME}',
        'message', 'Child job ' || ${child}.id || ' (queue ' || ${child}.queue || ') ended ' || ${child}.status || ' before this parent could run',
        'attempt', attempts)`;
}
