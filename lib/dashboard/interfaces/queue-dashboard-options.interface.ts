import type { CanActivate, ExecutionContext, ModuleMetadata, Type } from '@nestjs/common';
import type { JobInfo } from '../../interfaces/job-info.interface';
import type { ScheduleInfo } from '../../interfaces/schedule-options.interface';

/** What a redaction function is given besides the value: the job, or the schedule whose data it is. */
export type DashboardRedactionSource = JobInfo | ScheduleInfo;

/**
 * How one kind of value is shown: `true` hides it (the page says it is hidden), a function replaces it with what
 * it returns (e.g. the payload without its `email` field). Left out: shown as stored.
 */
export type DashboardRedaction = boolean | ((value: unknown, source: DashboardRedactionSource) => unknown);

/** The values `redact` applies to, each with its own rule. */
export interface DashboardRedactOptions {
  /** Job and schedule data. */
  data?: DashboardRedaction;
  /** What a job's handler returned. */
  result?: DashboardRedaction;
  /** The last value a handler passed to `job.updateProgress()`. Left out: hidden when `data` has a rule. */
  progress?: DashboardRedaction;
  /** A job's unique key (`JobOptions.key`). Left out: hidden when `data` has a rule. */
  key?: DashboardRedaction;
}

/** The kinds of value `redact` covers. */
export type DashboardRedactedField = keyof DashboardRedactOptions;

/** An auth hook as a plain function: resolve `true` to let the request through (the request is the platform's own object). */
export type DashboardAuthorizeFunction = (request: unknown, context: ExecutionContext) => boolean | Promise<boolean>;

/** Options of `QueueDashboardModule.forRoot()`. */
export interface QueueDashboardOptions {
  /** Where the dashboard is mounted on the app's HTTP server (after any global prefix). Default `/queues`. */
  path?: string;
  /** Show everything, change nothing: the action buttons are gone and every action request is refused (403). */
  readOnly?: boolean;
  /**
   * Guards of the app that every dashboard request (pages, data and actions) must pass, in order: classes
   * (instantiated by Nest in this module, which sees `imports` and global providers) or instances.
   */
  guards?: (Type<CanActivate> | CanActivate)[];
  /** An auth hook as a function, run after `guards`. */
  authorize?: DashboardAuthorizeFunction;
  /** Modules the guard classes need providers from (they are resolved in the dashboard's module). */
  imports?: ModuleMetadata['imports'];
  /**
   * Hide or rewrite values before they leave the server: job and schedule `data`, job `result`, and a job's
   * `progress` and unique `key` (in lists and on the job's page). `progress` and `key` are often built from the data
   * (a handler reports `{ email }`, a key `invoice-<customer>`), so each one left out is hidden whenever `data` has a
   * rule (`true` or a function); give it its own rule (`false` to show it as stored). A job's `name`, queue, status,
   * timestamps, owner and error are always shown: a name is the kind of work, like the queue.
   */
  redact?: DashboardRedactOptions;
  /**
   * Origins (`https://ops.example.com`) allowed to send actions besides the dashboard's own host, e.g. when a
   * proxy rewrites the Host header. Their host names are answered as if listed in `allowedHosts`. Default: none.
   */
  allowedOrigins?: string[];
  /**
   * Host names (`ops.example.com`, no scheme, no port) the dashboard answers to besides `localhost` and IP
   * addresses, as the `Host` header carries them: the name you open it by, or the name a reverse proxy forwards.
   * Any other name is refused (421) on every route, so a page of another site whose name it got to resolve to
   * this server (DNS rebinding) can neither read nor act. `X-Forwarded-Host` is not read. Default: none.
   */
  allowedHosts?: string[];
  /** How often an open page refreshes its data, in ms (1000 to 60000, default 2000). Hidden tabs do not poll. */
  refreshInterval?: number;
  /** How many minutes of history the charts show (5 to 240, default 60). */
  chartMinutes?: number;
}

/** The options with their defaults applied, as the dashboard's providers read them. */
export interface ResolvedDashboardOptions {
  path: string;
  readOnly: boolean;
  /** One rule per field, the defaults of `progress` and `key` applied. */
  redact: DashboardRedactOptions;
  allowedOrigins: string[];
  /** Every configured name answered: `allowedHosts` and the hosts of `allowedOrigins`, as `hostNameOf` gives them. */
  allowedHosts: string[];
  refreshInterval: number;
  chartMinutes: number;
}
