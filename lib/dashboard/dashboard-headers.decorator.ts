import { Header, applyDecorators } from '@nestjs/common';

/**
 * The page loads only its own script and stylesheet and talks only to its own server: even a payload that got
 * past the escaping could neither run inline script nor send anything elsewhere.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** What every dashboard response carries, assets included: no sniffing, no framing (clickjacking), the CSP. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

/** Headers of every dashboard response but the hashed assets: no caching of live data, and `SECURITY_HEADERS`. */
export function DashboardHeaders(contentType: string): MethodDecorator {
  return applyDecorators(
    Header('Content-Type', contentType),
    Header('Cache-Control', 'no-store'),
    ...Object.entries(SECURITY_HEADERS).map(([name, value]) => Header(name, value)),
  );
}
