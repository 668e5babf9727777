import { CanActivate, ExecutionContext, ForbiddenException } from '@nestjs/common';

type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * The CSRF defence of every action. A browser tells where a request comes from (`Sec-Fetch-Site`, `Origin`); an
 * action is taken only when both, where present, say "this dashboard's own origin" and at least one is present
 * (every browser in use sends them on a POST), and only with a JSON body, which a page of another site cannot
 * send without a CORS preflight this server never answers. No token to store, nothing to configure. The own
 * origin is read from the `Host` header, which `AllowedHostGuard` has checked first: a page that got its own name
 * to resolve here (DNS rebinding) sends a matching `Host` and `Origin`, and only that guard refuses it.
 */
export class SameOriginGuard implements CanActivate {
  constructor(private readonly allowedOrigins: string[]) {}

  canActivate(context: ExecutionContext): boolean {
    const headers = (context.switchToHttp().getRequest<{ headers: HeaderBag }>().headers ?? {}) as HeaderBag;
    const refusal = this.refusal(headers);
    if (refusal) throw new ForbiddenException({ message: `Action refused: ${refusal}.` });
    return true;
  }

  private refusal(headers: HeaderBag): string | null {
    const site = header(headers, 'sec-fetch-site');
    const origin = header(headers, 'origin');
    if (site === undefined && origin === undefined) return 'the request does not say where it comes from (no Origin header)';
    if (site !== undefined && site !== 'same-origin') return `it comes from another site (Sec-Fetch-Site: ${site})`;
    if (origin !== undefined && !this.isOwnOrigin(origin, header(headers, 'host'))) return `it comes from another origin (${origin})`;
    const type = header(headers, 'content-type') ?? '';
    if (!/^application\/json\b/i.test(type)) return 'actions take a JSON body';
    return null;
  }

  private isOwnOrigin(origin: string, host: string | undefined): boolean {
    if (this.allowedOrigins.includes(origin)) return true;
    try {
      return host !== undefined && new URL(origin).host === host.toLowerCase();
    } catch {
      return false; // 'null' (a sandboxed frame, a file) and garbage
    }
  }
}

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
