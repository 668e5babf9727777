/**
 * The docs cannot drift from the code: every relative link of README.md, CHANGELOG.md, CONTRIBUTING.md and
 * docs/**.md leads to a file that exists (and to a heading of it, when it names one), every ```ts block
 * compiles in strict mode against the library's source (conventions in test/support/doc-snippets.ts), and the pages
 * that promise to list every option or every error do. The README stays a front door.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import * as ts from 'typescript';
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
  const path =
    pathPart === ''
      ? from.path
      : normalize(join(dirname(from.path), decodeURI(pathPart)))
          .split('\\')
          .join('/');
  if (path.startsWith('..')) return `${link}: leaves the repository`;
  if (!existsSync(join(ROOT, path))) return `${link}: no file ${path}`;
  if (anchor === undefined) return null;
  if (!path.endsWith('.md') || statSync(join(ROOT, path)).isDirectory()) return `${link}: an anchor into a file that is not Markdown`;
  return target(path).anchors.has(anchor) ? null : `${link}: ${path} has no heading #${anchor}`;
}

/** The property names an interface of a lib/ file declares (its own, not inherited). */
function interfaceMembers(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022);
  const declaration = source.statements.find(
    (node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name,
  );
  if (!declaration) throw new Error(`${file} declares no interface ${name}`);
  return declaration.members.flatMap((member) => (member.name && ts.isIdentifier(member.name) ? [member.name.text] : []));
}

/** The error classes the package exports: every class (and the 0.1 alias) of the files lib/errors/index.ts re-exports. */
function exportedErrors(): string[] {
  const index = readFileSync(join(ROOT, 'lib/errors/index.ts'), 'utf8');
  return [...index.matchAll(/export \* from '\.\/([\w.-]+)';/g)].flatMap(([, module]) =>
    [...readFileSync(join(ROOT, 'lib/errors', `${module}.ts`), 'utf8').matchAll(/^export (?:class|const) (\w+)/gm)].map(
      (match) => match[1],
    ),
  );
}

/** The names in backticks of the first cell of every table row of one `## ` section of a page. */
function tableNames(page: MarkdownFile, heading: string): Set<string> {
  const sections = page.text.split(/^## /m);
  const section = sections.find((text) => text.startsWith(heading));
  if (!section) throw new Error(`${page.path} has no section "## ${heading}"`);
  const names = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    for (const match of row.split(' | ')[0].matchAll(/`(\w+)`/g)) names.add(match[1]);
  }
  return names;
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

  it.each([
    ['Module options', 'lib/interfaces/sqlite-queue-module-options.interface.ts', 'SqliteQueueModuleOptions'],
    ['Processor options', 'lib/interfaces/processor-options.interface.ts', 'ProcessorOptions'],
    ['Processor options', 'lib/interfaces/queue-limits.interface.ts', 'QueueLimits'],
    ['Job options', 'lib/interfaces/job-options.interface.ts', 'JobOptions'],
    ['`postgres` options', 'lib/interfaces/postgres-queue-options.interface.ts', 'PostgresQueueOptions'],
  ])('docs/configuration.md, %s: a row for every option of %s', (heading, file, name) => {
    const rows = tableNames(byPath.get('docs/configuration.md')!, heading);
    expect(interfaceMembers(file, name).filter((option) => !rows.has(option))).toEqual([]);
  });

  it('docs/errors.md: a row for every exported error', () => {
    const errors = byPath.get('docs/errors.md')!;
    const rows = new Set(
      errors.text
        .split('\n')
        .flatMap((line) => (line.startsWith('| `') ? [...line.split(' | ')[0].matchAll(/`(\w+)`/g)].map((m) => m[1]) : [])),
    );
    // The base class and its 0.1 alias are named in the text above the table.
    const missing = exportedErrors().filter(
      (name) => !rows.has(name) && !(/^(Sqlite)?QueueError$/.test(name) && errors.text.includes(`\`${name}\``)),
    );
    expect(missing).toEqual([]);
  });

  it('the README is a front door: at most 300 lines, no link out of the repository', () => {
    const readme = byPath.get('README.md')!;
    expect(readme.text.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme.links.filter((link) => isExternal(link.target)).map((link) => link.target)).toEqual([]);
  });
});
