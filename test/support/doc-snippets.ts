import * as ts from 'typescript';
import { join } from 'node:path';
import { MarkdownFile } from './markdown';

/**
 * Type-checks the ```ts blocks of the docs against the library's source, all in one TypeScript program (each block
 * its own module, in memory), so a page whose code no longer compiles fails the suite. The conventions, which
 * CONTRIBUTING.md states for whoever writes a page:
 * - `nestjs-sqlite-queue`, `nestjs-sqlite-queue/dashboard` and `nestjs-sqlite-queue/terminus` are `lib/index.ts`,
 *   `lib/dashboard.ts` and `lib/terminus.ts`.
 * - A name a block uses without importing or declaring it is imported for it when the package's main entry or
 *   `@nestjs/common` exports it (`@Processor`, `Job`, `@Module`...), as a reader would.
 * - Every block may use `producer`, `admin`, `events` and `dataSource` (SNIPPET_GLOBALS), the handles most examples
 *   start from.
 * - An HTML comment directly above the fence adds what else the fragment assumes, unseen on the rendered page:
 *   `<!-- prelude: declare const invoice: Invoice; -->` is compiled before the block.
 * - `<!-- not type-checked: reason -->` directly above the fence leaves a block out (code of another library).
 * - `prom-client` and `@nestjs/typeorm`, which pages use but the repository does not install, are stand-ins
 *   (STAND_INS).
 */

/** Where the snippet modules live in the program: inside the repository, so packages resolve from node_modules. */
const SNIPPET_DIR = '.docs-snippets';

/** Handles that every snippet may use without declaring them (a script file: its declarations are global). */
const SNIPPET_GLOBALS = `
declare const producer: import('nestjs-sqlite-queue').QueueProducer;
declare const admin: import('nestjs-sqlite-queue').QueueAdmin;
declare const events: import('nestjs-sqlite-queue').QueueEvents;
declare const dataSource: import('typeorm').DataSource;
`;

/**
 * Stand-ins for the few packages a page uses that this repository does not install, declared with just the part the
 * pages call (the shapes of their published typings): what is checked is this library's side of the code.
 */
const STAND_INS = `
declare module 'prom-client' {
  export class Gauge<T extends string = string> {
    constructor(configuration: { name: string; help: string; labelNames?: readonly T[]; collect?: (this: Gauge<T>) => void | Promise<void> });
    set(labels: Partial<Record<T, string | number>>, value: number): void;
  }
}
declare module '@nestjs/typeorm' {
  export class TypeOrmModule {
    static forRoot(options?: import('typeorm').DataSourceOptions): import('@nestjs/common').DynamicModule;
  }
}
`;

/** Modules whose exports a snippet may use unimported, the first that exports a name winning. */
const AUTO_IMPORTED = ['nestjs-sqlite-queue', '@nestjs/common'];

const PRELUDE = /^prelude:\s*([\s\S]*)$/;
const SKIP = /^not type-checked:\s*(\S[\s\S]*)$/;

/** One ```ts block turned into a module of the program. */
interface Snippet {
  /** Where it came from: `docs/x.md:12` is the block's first line. */
  page: string;
  firstLine: number;
  fileName: string;
  /** Lines added before the block (prelude, imports), to map a diagnostic back to the page's line. */
  addedLines: number;
  source: string;
}

/** What the check found: one line per error, and the blocks left out with their reason. */
export interface SnippetReport {
  checked: number;
  skipped: string[];
  errors: string[];
}

/** Type-checks every ```ts block of the given pages. */
export function checkSnippets(root: string, pages: MarkdownFile[]): SnippetReport {
  const skipped: string[] = [];
  const bodies: { page: string; line: number; prelude: string; code: string }[] = [];
  for (const page of pages) {
    for (const block of page.blocks) {
      if (block.lang !== 'ts' && block.lang !== 'typescript') continue;
      const skip = block.comment ? SKIP.exec(block.comment) : null;
      if (skip) {
        skipped.push(`${page.path}:${block.line} (${skip[1].trim()})`);
        continue;
      }
      const prelude = block.comment ? PRELUDE.exec(block.comment) : null;
      bodies.push({ page: page.path, line: block.line, prelude: prelude ? prelude[1].trim() : '', code: block.code });
    }
  }
  const options = compilerOptions(root);
  const host = ts.createCompilerHost(options, true);
  const files = new Map<string, string>();
  const globalsFile = join(root, SNIPPET_DIR, 'snippet-globals.d.ts');
  files.set(globalsFile, SNIPPET_GLOBALS);
  const standInsFile = join(root, SNIPPET_DIR, 'stand-ins.d.ts');
  files.set(standInsFile, STAND_INS);
  const probeFile = join(root, SNIPPET_DIR, 'auto-imports.ts');
  files.set(probeFile, AUTO_IMPORTED.map((module, index) => `import * as m${index} from '${module}';\nexport { m${index} };`).join('\n'));
  const snippets = bodies.map((body, index): Snippet => {
    const source = body.prelude ? `${body.prelude}\n${body.code}` : body.code;
    const fileName = join(root, SNIPPET_DIR, `${body.page.replace(/[^\w]/g, '_')}_${body.line}_${index}.ts`);
    return { page: body.page, firstLine: body.line, fileName, addedLines: body.prelude ? body.prelude.split('\n').length : 0, source };
  });
  // One parse per file for both passes: the second program reuses what the first parsed (the library, typeorm's and
  // Nest's declarations), and only the snippets given imports are parsed again.
  const parsed = new Map<string, ts.SourceFile | undefined>();
  const withHost = (): ts.CompilerHost => ({
    ...host,
    fileExists: (name) => files.has(name) || host.fileExists(name),
    readFile: (name) => files.get(name) ?? host.readFile(name),
    getSourceFile: (name, language, onError, create) => {
      const text = files.get(name);
      const kept = parsed.get(name);
      if (kept && (text === undefined || kept.text === text)) return kept;
      const file =
        text !== undefined ? ts.createSourceFile(name, text, language, true) : host.getSourceFile(name, language, onError, create);
      parsed.set(name, file);
      return file;
    },
  });

  // First pass: the exported names of the auto-imported modules, and what each snippet uses unimported.
  for (const snippet of snippets) files.set(snippet.fileName, snippet.source);
  const first = ts.createProgram([probeFile, globalsFile, standInsFile, ...snippets.map((s) => s.fileName)], options, withHost());
  const exportsOf = exportedNames(first, probeFile);
  for (const snippet of snippets) {
    const imports = autoImports(first.getSourceFile(snippet.fileName)!, exportsOf);
    if (imports.length === 0) continue;
    snippet.source = `${imports.join('\n')}\n${snippet.source}`;
    snippet.addedLines += imports.length;
    files.set(snippet.fileName, snippet.source);
  }

  // Second pass: the snippets with their imports, reusing the first program's parsed library and dependencies.
  const program = ts.createProgram([globalsFile, standInsFile, ...snippets.map((s) => s.fileName)], options, withHost(), first);
  const errors: string[] = [];
  // Only the snippets' own diagnostics: the library is type-checked by `npm run typecheck`, and checking its 230
  // files again here would triple the time.
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...snippets.flatMap((snippet) => {
      const file = program.getSourceFile(snippet.fileName)!;
      return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    }),
  ];
  for (const diagnostic of diagnostics) {
    const snippet = snippets.find((s) => s.fileName === diagnostic.file?.fileName);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!snippet || !diagnostic.file || diagnostic.start === undefined) {
      errors.push(`${diagnostic.file?.fileName ?? 'program'}: TS${diagnostic.code}: ${message}`);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const pageLine = snippet.firstLine + line - snippet.addedLines;
    const where = line < snippet.addedLines ? `${snippet.page}:${snippet.firstLine - 1} (its prelude)` : `${snippet.page}:${pageLine}`;
    errors.push(`${where}: TS${diagnostic.code}: ${message}`);
  }
  return { checked: snippets.length, skipped, errors };
}

/** Strict, like the library, with the package's entry points mapped to its source. */
function compilerOptions(root: string): ts.CompilerOptions {
  return {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    // ES modules, so a snippet may `await` at its top level as application code does inside an async function.
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // Every block is a module, whatever it contains: its declarations stay its own.
    moduleDetection: ts.ModuleDetectionKind.Force,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    // As in the tsconfig.json `nest new` writes: with it, a type that only a plain import brings into a decorated
    // signature (an event interface in an @OnJobEvent method, SchemaQueue in an injected parameter) fails to
    // compile, so a page must show the `import type` a reader needs.
    isolatedModules: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node', 'jest'],
    typeRoots: [join(root, 'node_modules', '@types')],
    baseUrl: root,
    paths: {
      'nestjs-sqlite-queue': ['lib/index.ts'],
      'nestjs-sqlite-queue/dashboard': ['lib/dashboard.ts'],
      'nestjs-sqlite-queue/terminus': ['lib/terminus.ts'],
    },
  };
}

/** For each auto-imported module, the names it exports (values and types alike). */
function exportedNames(program: ts.Program, probeFile: string): Map<string, string> {
  const checker = program.getTypeChecker();
  const owner = new Map<string, string>();
  const probe = program.getSourceFile(probeFile)!;
  probe.statements.filter(ts.isImportDeclaration).forEach((declaration, index) => {
    const symbol = checker.getSymbolAtLocation(declaration.moduleSpecifier);
    if (!symbol) throw new Error(`docs snippets: cannot resolve ${AUTO_IMPORTED[index]}`);
    for (const name of checker.getExportsOfModule(symbol).map((s) => s.name)) if (!owner.has(name)) owner.set(name, AUTO_IMPORTED[index]);
  });
  return owner;
}

/** The import lines a snippet needs: names it uses, that no declaration or import of its own provides. */
function autoImports(file: ts.SourceFile, exportsOf: Map<string, string>): string[] {
  const own = new Set<string>();
  const used = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (clause?.name) own.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) own.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) bindings.elements.forEach((element) => own.add(element.name.text));
      return;
    }
    const named = node as ts.Node & { name?: ts.Node };
    if (
      (ts.isClassDeclaration(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node) ||
        ts.isVariableDeclaration(node)) &&
      named.name &&
      ts.isIdentifier(named.name) &&
      node.parent === file
    )
      own.add(named.name.text);
    if (ts.isVariableStatement(node) && node.parent === file)
      node.declarationList.declarations.forEach((d) => ts.isIdentifier(d.name) && own.add(d.name.text));
    if (ts.isIdentifier(node)) used.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  const byModule = new Map<string, string[]>();
  for (const name of used) {
    const module = exportsOf.get(name);
    if (!module || own.has(name)) continue;
    byModule.set(module, [...(byModule.get(module) ?? []), name]);
  }
  return [...byModule].map(([module, names]) => `import { ${names.sort().join(', ')} } from '${module}';`);
}
