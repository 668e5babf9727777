import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { DASHBOARD_SCRIPT } from './dashboard-script';
import { DASHBOARD_STYLE } from './dashboard-style';

/** One static file of the page, compressed once at load: the page's script and stylesheet never change while running. */
export interface DashboardAsset {
  /** Its name in the URL, with a hash of its content: a new version is a new URL, so a year's cache is safe. */
  file: string;
  contentType: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

function asset(base: string, ext: string, contentType: string, text: string): DashboardAsset {
  const identity = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  return {
    file: `${base}.${hash}.${ext}`,
    contentType,
    identity,
    gzip: compress(identity, 'gzip', 'smallest'),
    br: compress(identity, 'br', 'smallest'),
  };
}

/**
 * `body` in `encoding`. `smallest` (the assets, compressed once at load) spends what it takes; `fast` (a JSON
 * answer, compressed on every poll) stays well under a millisecond for the API's answers and still gets most of
 * the gain.
 */
export function compress(body: Buffer, encoding: 'br' | 'gzip', effort: 'smallest' | 'fast'): Buffer {
  if (encoding === 'gzip') return gzipSync(body, { level: effort === 'smallest' ? 9 : 6 });
  return brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: effort === 'smallest' ? 11 : 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
}

/** The script and the stylesheet, by the file name the page links. */
export const DASHBOARD_ASSETS = {
  script: asset('dashboard', 'js', 'text/javascript; charset=utf-8', DASHBOARD_SCRIPT),
  style: asset('dashboard', 'css', 'text/css; charset=utf-8', DASHBOARD_STYLE),
};

/** `Cache-Control` of a hashed asset: its URL changes with its content, so it never needs asking again. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The encoding to answer with for an `Accept-Encoding` header: br, else gzip, else none. A coding listed with
 * `q=0` is refused; `*` accepts both.
 */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): 'br' | 'gzip' | 'identity' {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '');
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (!coding) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    accepted.set(coding, q ? Number(q[1]) : 1);
  }
  const wants = (coding: string) => (accepted.get(coding) ?? accepted.get('*') ?? 0) > 0;
  if (wants('br')) return 'br';
  if (wants('gzip')) return 'gzip';
  return 'identity';
}
