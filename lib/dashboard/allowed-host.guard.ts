import { CanActivate, ExecutionContext, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { hostNameOf, isAlwaysAnswered } from './request-host';

const logger = new Logger('JobQueue');

/** Distinct refused names warned about per mount: enough for an operator's mistakes, bounded against a flood. */
const WARNED_NAMES_LIMIT = 32;

/**
 * The DNS-rebinding defence of every dashboard route (page, assets, data and actions). A page of another site can
 * get its own name (`evil.example`) to resolve to this server's address; the browser then treats the dashboard as
 * that page's own origin, so the `Origin` check lets its actions through and CORS lets it read the data. What
 * that page cannot choose is the name: its requests carry `Host: evil.example`. So only names that cannot be
 * rebound (`localhost`, IP literals) and the names the operator configured (`allowedHosts`, the hosts of
 * `allowedOrigins`) are answered; anything else gets 421 Misdirected Request, saying which option to set.
 * `X-Forwarded-Host` is never read: any client can send it.
 */
export class AllowedHostGuard implements CanActivate {
  private readonly warned = new Set<string>();

  constructor(private readonly allowedHosts: ReadonlySet<string>) {}

  canActivate(context: ExecutionContext): boolean {
    const headers = context.switchToHttp().getRequest<{ headers?: Record<string, string | string[] | undefined> }>().headers ?? {};
    // HTTP/2 names the host in its `:authority` pseudo-header, which node's compatibility layer may leave alone.
    const raw = headers.host ?? headers[':authority'];
    const header = Array.isArray(raw) ? raw[0] : raw;
    const name = hostNameOf(header);
    if (name !== null && (isAlwaysAnswered(name) || this.allowedHosts.has(name))) return true;
    const shown = JSON.stringify((header ?? '').slice(0, 100));
    const reason =
      header === undefined
        ? 'the request names no host (no Host header)'
        : name === null
          ? `the Host header ${shown} is not a host name`
          : `this dashboard does not answer to the host name "${name}"`;
    const fix =
      name === null
        ? ''
        : ` If it is the name you open the dashboard by, add it to QueueDashboardModule.forRoot({ allowedHosts: ['${name}'] }).`;
    this.warnOnce(name ?? shown, reason);
    throw new HttpException(
      {
        statusCode: HttpStatus.MISDIRECTED,
        error: 'Misdirected Request',
        message: `Dashboard request refused: ${reason} (a page of another site can reach this server under its own name by DNS rebinding).${fix}`,
      },
      HttpStatus.MISDIRECTED,
    );
  }

  /** An operator who mistyped or forgot a name learns it from the log too, once per name. */
  private warnOnce(key: string, reason: string): void {
    if (this.warned.has(key) || this.warned.size >= WARNED_NAMES_LIMIT) return;
    this.warned.add(key);
    logger.warn(`Dashboard: refused a request: ${reason}; names it answers to besides localhost and IP addresses: ${this.listed()}`);
  }

  private listed(): string {
    return this.allowedHosts.size === 0 ? 'none (set allowedHosts)' : [...this.allowedHosts].join(', ');
  }
}
