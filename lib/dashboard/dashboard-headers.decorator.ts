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

/** Headers of every dashboard response: no caching of live data, no sniffing, no framing (clickjacking). */
export function DashboardHeaders(contentType: string): MethodDecorator {
  return applyDecorators(
    Header('Content-Type', contentType),
    Header('Cache-Control', 'no-store'),
    Header('Content-Security-Policy', CONTENT_SECURITY_POLICY),
    Header('X-Content-Type-Options', 'nosniff'),
    Header('X-Frame-Options', 'DENY'),
    Header('Referrer-Policy', 'same-origin'),
  );
}
