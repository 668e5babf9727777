/**
 * The error a job records when its lease expired: written by each backend's recovery statement (in SQL, with the
 * worker's id) and by the process that recovered it (in the `failed` event). One wording, kept here.
 */

/** The `name` of the recorded error. */
export const LEASE_EXPIRED_ERROR_NAME = 'LeaseExpiredError'; // = LeaseExpiredError.name (lib/errors)

const PREFIX = 'Lease expired during attempt ';
const REASON = 'stopped renewing it (the process crashed, hung or was killed)';

/** The message, for JavaScript that knows the attempt but not the worker. */
export function leaseExpiredMessage(attempt: number): string {
  return `${PREFIX}${attempt}: its worker ${REASON}`;
}

/**
 * The SQL expression of the recorded error as a JSON object, over the row's `attempts` and `locked_by`.
 * `jsonObject` is the backend's function: `json_object` (SQLite) or `json_build_object` (PostgreSQL).
 */
export function leaseExpiredErrorSql(jsonObject: 'json_object' | 'json_build_object'): string {
  return `${jsonObject}(
        'name', '${LEASE_EXPIRED_ERROR_NAME}',
        'message', '${PREFIX}' || attempts || ': worker ' || COALESCE(locked_by, '?') || ' ${REASON}',
        'attempt', attempts)`;
}
