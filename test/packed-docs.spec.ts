/**
 * The installed package's docs lead nowhere the package is not: every relative link of every Markdown file the
 * tarball ships (README, CHANGELOG, CONTRIBUTING, docs/, the bench reports and notes) targets a file the tarball
 * ships too. A reader of node_modules/nestjs-sqlite-queue/ has no repository beside it; test/docs.spec.ts checks
 * the links against the repository, this checks them against the package. The shipped set is npm's own answer
 * (`npm pack --dry-run --json --ignore-scripts`: package.json `files` plus what npm always adds), so dist/ need
 * not be built: no page links into it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { readMarkdown } from './support/markdown';

const ROOT = resolve(__dirname, '..');

/**
 * Targets left out of the package on purpose, each with its reason. The dashboard's screenshots (docs/images/, about
 * 1.5 MB, more than the rest of the tarball) are for the repository's readers; in the package the image's alt text,
 * which describes the view, stands in. Allowed only as an image with alt text, never as a link.
 */
const UNSHIPPED_IMAGES = ['docs/images/'];

/** The paths the tarball would hold, as npm computes them. */
function shippedFiles(): Set<string> {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [manifest] = JSON.parse(output.slice(output.indexOf('['))) as { files: { path: string }[] }[];
  return new Set(manifest.files.map((file) => file.path));
}

const isExternal = (link: string): boolean => /^[a-z][a-z\d+.-]*:/i.test(link) || link.startsWith('//');
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the packed docs', () => {
  const shipped = shippedFiles();
  const pages = [...shipped].filter((path) => path.endsWith('.md')).sort();
  const isShipped = (path: string): boolean =>
    shipped.has(path) || [...shipped].some((file) => file.startsWith(`${path.replace(/\/$/, '')}/`));

  it('ships the pages the README and docs/ link to', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/README.md']));
  });

  it('every relative link of a shipped Markdown file targets a shipped file', () => {
    const broken: string[] = [];
    for (const path of pages) {
      const page = readMarkdown(ROOT, path);
      const lines = page.text.split('\n');
      for (const link of page.links) {
        const pathPart = link.target.split('#', 1)[0];
        if (isExternal(link.target) || pathPart === '') continue;
        const target = posix.normalize(posix.join(posix.dirname(path), decodeURI(pathPart)));
        if (isShipped(target)) continue;
        const image = new RegExp(`!\\[[^\\]]+\\]\\(\\s*<?${escapeRegExp(pathPart)}`).test(lines[link.line - 1]);
        if (image && UNSHIPPED_IMAGES.some((folder) => target.startsWith(folder))) continue;
        const why = existsSync(join(ROOT, target)) ? 'not in the package' : 'no such file';
        broken.push(`${path}:${link.line}: ${link.target} (${target}: ${why})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
