import { InvalidDashboardOptionsError } from '../errors/invalid-dashboard-options.error';
import { describeValue } from '../utils/validation.util';
import {
  DashboardRedactedField,
  DashboardRedactOptions,
  QueueDashboardOptions,
  ResolvedDashboardOptions,
} from './interfaces/queue-dashboard-options.interface';
import { HOST_NAME_PATTERN, normaliseHostName } from './request-host';

/** Path segments a route and an HTML attribute both take as they are: nothing to escape, nothing a router reads as a pattern. */
const PATH_PATTERN = /^\/?[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?$/;

/** Checks the options and fills in the defaults; a wrong option fails `forRoot` itself, so the app does not boot. */
export function resolveDashboardOptions(options: QueueDashboardOptions = {}): ResolvedDashboardOptions {
  const path = options.path ?? '/queues';
  if (typeof path !== 'string' || !PATH_PATTERN.test(path)) {
    throw new InvalidDashboardOptionsError(
      'path',
      `must be a URL path of letters, digits and . _ ~ - such as '/queues', got ${describeValue(path)}`,
    );
  }
  const guards = options.guards ?? [];
  if (!Array.isArray(guards) || guards.some((guard) => !isGuard(guard))) {
    throw new InvalidDashboardOptionsError('guards', 'must be an array of CanActivate classes or instances');
  }
  if (options.authorize !== undefined && typeof options.authorize !== 'function') {
    throw new InvalidDashboardOptionsError('authorize', `must be a function, got ${describeValue(options.authorize)}`);
  }
  const redact = resolveRedact(options.redact);
  const allowedOrigins = options.allowedOrigins ?? [];
  if (!Array.isArray(allowedOrigins) || allowedOrigins.some((origin) => !isOrigin(origin))) {
    throw new InvalidDashboardOptionsError('allowedOrigins', "must be an array of origins such as 'https://ops.example.com'");
  }
  const allowedHosts = options.allowedHosts ?? [];
  if (!Array.isArray(allowedHosts) || allowedHosts.some((host) => typeof host !== 'string' || !HOST_NAME_PATTERN.test(host))) {
    throw new InvalidDashboardOptionsError(
      'allowedHosts',
      `must be an array of host names such as 'ops.example.com' (no scheme, no port; localhost and IP addresses need no entry), got ${describeValue(allowedHosts)}`,
    );
  }
  const origins = allowedOrigins.map((origin) => new URL(origin));
  const hosts = new Set([...allowedHosts, ...origins.map((url) => url.hostname)].map(normaliseHostName));
  return {
    path: '/' + path.replace(/^\/+|\/+$/g, ''),
    readOnly: options.readOnly === true,
    redact,
    allowedOrigins: origins.map((url) => url.origin),
    allowedHosts: [...hosts],
    refreshInterval: integerIn('refreshInterval', options.refreshInterval ?? 2000, 1000, 60_000),
    chartMinutes: integerIn('chartMinutes', options.chartMinutes ?? 60, 5, 240),
  };
}

const REDACTED_FIELDS: DashboardRedactedField[] = ['data', 'result', 'progress', 'key'];

/** Checks each rule; `progress` and `key` left out follow `data`: hidden when it has a rule (they are often built from it). */
function resolveRedact(redact: DashboardRedactOptions = {}): DashboardRedactOptions {
  if (typeof redact !== 'object' || redact === null) {
    throw new InvalidDashboardOptionsError('redact', `must be an object { data?, result?, progress?, key? }, got ${describeValue(redact)}`);
  }
  const stray = Object.keys(redact).find((field) => !REDACTED_FIELDS.includes(field as DashboardRedactedField));
  if (stray !== undefined)
    throw new InvalidDashboardOptionsError(`redact.${stray}`, `is not a field redact covers (${REDACTED_FIELDS.join(', ')})`);
  for (const field of REDACTED_FIELDS) {
    const rule = redact[field];
    if (rule !== undefined && typeof rule !== 'boolean' && typeof rule !== 'function') {
      throw new InvalidDashboardOptionsError(`redact.${field}`, `must be a boolean or a function, got ${describeValue(rule)}`);
    }
  }
  const followsData = redact.data !== undefined && redact.data !== false;
  return {
    data: redact.data,
    result: redact.result,
    progress: redact.progress ?? (followsData ? true : undefined),
    key: redact.key ?? (followsData ? true : undefined),
  };
}

function integerIn(option: string, value: unknown, min: number, max: number): number {
  if (!(Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max)) {
    throw new InvalidDashboardOptionsError(option, `must be an integer from ${min} to ${max}, got ${describeValue(value)}`);
  }
  return value as number;
}

function isGuard(guard: unknown): boolean {
  if (typeof guard === 'function') return typeof (guard as { prototype?: { canActivate?: unknown } }).prototype?.canActivate === 'function';
  return typeof guard === 'object' && guard !== null && typeof (guard as { canActivate?: unknown }).canActivate === 'function';
}

function isOrigin(origin: unknown): boolean {
  if (typeof origin !== 'string') return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin.replace(/\/$/, '');
  } catch {
    return false;
  }
}
