import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The fence's info string's first word (`ts`, `text`, ...), or '' for a bare fence. */
  lang: string;
  /** 1-based line of the first line inside the fence. */
  line: number;
  /** The block's lines, without the fences. */
  code: string;
  /** The HTML comment on the line(s) directly above the opening fence, without `<!--` and `-->`, or null. */
  comment: string | null;
}

/** A link of a Markdown file, outside code blocks and code spans. */
export interface MarkdownLink {
  /** 1-based line. */
  line: number;
  /** The target as written: `docs/x.md#anchor`, `#anchor`, `https://…`. */
  target: string;
}

/** What the docs checks read from one Markdown file. */
export interface MarkdownFile {
  /** Path relative to the repository root, with `/` separators. */
  path: string;
  text: string;
  blocks: CodeBlock[];
  links: MarkdownLink[];
  /** The anchors its headings get on GitHub (`## Job options (\`add\`)` → `job-options-add`). */
  anchors: Set<string>;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;

/** The Markdown files of the repository whose links and snippets are checked: the front door and every docs page. */
export function docsFiles(root: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(join(root, 'docs'));
  return ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', ...pages.sort()];
}

/** Reads a Markdown file: its fenced blocks, its links and its headings' anchors. */
export function readMarkdown(root: string, path: string): MarkdownFile {
  const text = readFileSync(join(root, path), 'utf8');
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  const links: MarkdownLink[] = [];
  const slugs = new Map<string, number>();
  const anchors = new Set<string>();
  let open: { fence: string; lang: string; start: number; comment: string | null } | null = null;
  lines.forEach((line, index) => {
    const fence = FENCE.exec(line);
    if (open) {
      const closes = fence && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length && !fence[2];
      if (closes) {
        blocks.push({ lang: open.lang, line: open.start + 1, code: lines.slice(open.start, index).join('\n'), comment: open.comment });
        open = null;
      }
      return;
    }
    if (fence) {
      open = { fence: fence[1], lang: fence[2].toLowerCase(), start: index + 1, comment: commentAbove(lines, index) };
      return;
    }
    const heading = HEADING.exec(line);
    if (heading) anchors.add(uniqueSlug(headingText(heading[2]), slugs));
    for (const target of linkTargets(line)) links.push({ line: index + 1, target });
  });
  if (open) throw new Error(`${path}: the code block opened at line ${(open as { start: number }).start} is never closed`);
  return { path, text, blocks, links, anchors };
}

/** The HTML comment that ends on the line directly above `index` (a fence), without its delimiters. */
function commentAbove(lines: string[], index: number): string | null {
  const end = index - 1;
  if (end < 0 || !lines[end].trimEnd().endsWith('-->')) return null;
  for (let start = end; start >= 0; start--) {
    const at = lines[start].indexOf('<!--');
    if (at >= 0) {
      const body = [lines[start].slice(at + 4), ...lines.slice(start + 1, end + 1)].join('\n');
      return body.slice(0, body.lastIndexOf('-->')).trim();
    }
  }
  return null;
}

/** Link and image targets of one line, code spans left out (a code span may show link syntax as text). */
function linkTargets(line: string): string[] {
  const prose = line.replace(/(`+)[^`]*?\1/g, 'code');
  const targets: string[] = [];
  for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]);
  const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(prose);
  if (definition) targets.push(definition[1]);
  return targets;
}

/** A heading's text as GitHub renders it: code spans, links and emphasis reduced to their text. */
function headingText(markdown: string): string {
  // Code spans keep their text verbatim (an underscore in one is not emphasis), so they are set aside first.
  const spans: string[] = [];
  const prose = markdown
    .replace(/(`+)\s?(.*?)\s?\1/g, (_, __, code: string) => `\uE000${spans.push(code) - 1}\uE000`)
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|\*)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/(^|[^\p{L}\p{N}])(__|_)(\S(?:.*?\S)?)\2(?![\p{L}\p{N}])/gu, '$1$3')
    .replace(/<[^>]+>/g, '');
  return prose.replace(/\uE000(\d+)\uE000/g, (_, index: string) => spans[Number(index)]);
}

/**
 * GitHub's anchor for a heading's text: lower case, punctuation removed (letters, digits, `_`, `-` and spaces
 * stay), each space a hyphen; a repeated heading gets `-1`, `-2`, ... as GitHub numbers them.
 */
export function uniqueSlug(text: string, seen: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
  const count = seen.get(base);
  seen.set(base, (count ?? -1) + 1);
  return count === undefined ? base : `${base}-${count + 1}`;
}
