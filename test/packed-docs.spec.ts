/**
 * The installed package's docs lead nowhere the package is not: every relative link of every Markdown file the
 * tarball ships (README, CHANGELOG, CONTRIBUTING, docs/, the bench reports and notes) targets a file the tarball
 * ships too. A reader of node_modules/nestjs-sqlite-queue/ has no repository beside it; test/docs.spec.ts checks
 * the links against the repository, this checks them against the package.
 *
 * The shipped set is read from package.json `files` (plus what npm always ships), matched here against the working
 * tree, not asked of `npm pack --dry-run`: that lists dist/, which the consumer test's `npm pack` deletes and rebuilds
 * (and whose package.json it strips for a moment) while this file may run beside it. The consumer test checks what the
 * real tarball holds at its top level; no page links into dist/.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { readMarkdown } from './support/markdown';

const ROOT = resolve(__dirname, '..');

/**
 * Targets left out of the package on purpose, each with its reason. The dashboard's screenshots (docs/images/, about
 * 1.5 MB, more than the rest of the tarball) are for the repository's readers; in the package the image's alt text,
 * which describes the view, stands in. Allowed only as an image with alt text, never as a link.
 */
const UNSHIPPED_IMAGES = ['docs/images/'];

/** What npm ships whatever `files` says (those a page could link to). */
const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE'];

/** Folders never walked: npm never ships them (node_modules, .git), or they are build and scratch output. */
const NOT_WALKED = new Set(['node_modules', '.git', 'dist', 'dist-sample', '.tmp', '.data', 'coverage']);

/** A `files` pattern as a regular expression over a repository path: `**` any folders, `*` within one name. */
function patternOf(glob: string): RegExp {
  const body = glob
    .replace(/^\.?\//, '')
    .replace(/\/$/, '')
    .split(/(\*\*\/|\*)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  // A pattern naming a folder ships everything under it.
  return new RegExp(`^${body}(?:/.*)?$`);
}

/** Every file of the working tree (repository paths), but the folders of NOT_WALKED. */
function walk(folder = ''): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return NOT_WALKED.has(entry.name) ? [] : walk(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The working tree's files the tarball would hold, outside dist/. */
function shippedFiles(): Set<string> {
  const { files } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const patterns = files.map(patternOf);
  return new Set(walk().filter((path) => ALWAYS_SHIPPED.includes(path) || patterns.some((pattern) => pattern.test(path))));
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

  it('reads `files` patterns as npm does: ** any folders, * within one name, a folder with all under it', () => {
    const matches = (glob: string, path: string): boolean => patternOf(glob).test(path);
    expect(matches('docs/**/*.md', 'docs/errors.md')).toBe(true);
    expect(matches('docs/**/*.md', 'docs/deep/er/page.md')).toBe(true);
    expect(matches('docs/**/*.md', 'docs/images/a.png')).toBe(false);
    expect(matches('bench/notes/*.md', 'bench/notes/2026-12-07-x.md')).toBe(true);
    expect(matches('bench/notes/*.md', 'bench/notes/old/x.md')).toBe(false);
    expect(matches('CHANGELOG.md', 'CHANGELOG.md')).toBe(true);
    expect(matches('CHANGELOG.md', 'CHANGELOGxmd')).toBe(false);
    expect(matches('bench/notes', 'bench/notes/x.md')).toBe(true);
    expect(matches('bench/notes/', 'bench/notes/x.md')).toBe(true);
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
