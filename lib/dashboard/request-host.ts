import { isIPv4, isIPv6 } from 'node:net';

/** One DNS label: letters, digits, `-` and `_` (used by some internal names), not starting or ending with `-`. */
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';

/** A host name in ASCII (an internationalised name in its punycode form), optionally ending in the root's dot. */
export const HOST_NAME_PATTERN = new RegExp(`^(?=.{1,253}\\.?$)${LABEL}(?:\\.${LABEL})*\\.?$`, 'i');

/**
 * The host name a `Host` header names, in the form the dashboard compares: lower case, without its port and
 * without the root's trailing dot (`LocalHost.:3000` → `localhost`; `ops.example.com.` resolves as
 * `ops.example.com`, so it is the same name), an IPv6 literal in its brackets (`[::1]`). `null` for a missing
 * header or anything that is not a host with an optional port. Nothing is canonicalised beyond that: a browser
 * sends the canonical form, and `0x7f.1` is not read as `127.0.0.1`.
 */
export function hostNameOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(header.trim());
  if (!match) return null;
  const name = match[1].toLowerCase();
  if (name.startsWith('[')) return isIPv6(name.slice(1, -1)) ? name : null;
  return HOST_NAME_PATTERN.test(name) ? name.replace(/\.$/, '') : null;
}

/** The form `hostNameOf` gives of a configured name or of a URL's `hostname`. */
export function normaliseHostName(name: string): string {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return isIPv6(lower) ? `[${lower}]` : lower;
}

/**
 * Names no DNS answer can point at another machine, so no page of another site is ever served under them: the
 * loopback name and IP literals (a page at `http://203.0.113.5:3000` came from that address, which is this
 * server). These are answered without configuration; every other name must be configured.
 */
export function isAlwaysAnswered(hostName: string): boolean {
  if (hostName === 'localhost') return true;
  if (hostName.startsWith('[')) return isIPv6(hostName.slice(1, -1));
  return isIPv4(hostName);
}
