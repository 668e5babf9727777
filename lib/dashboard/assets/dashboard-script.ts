import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as TypeScript from 'typescript';

/** The browser program's folder: lib/dashboard/browser from source, dist/dashboard/browser in the package. */
const BROWSER_DIR = join(__dirname, '..', 'browser');
/** What `npm run build` compiles it to (its tsconfig's outFile), beside the server code that serves it. */
const BUILT = join(BROWSER_DIR, 'dashboard.browser.js');
/** Present only in a checkout: tests and the sample run the library from its TypeScript. */
const SOURCE_CONFIG = join(BROWSER_DIR, 'tsconfig.json');

/** `tsc` starts its output (and each file transpiled alone) with a "use strict" of its own: one, at the top, is enough. */
const USE_STRICT = /^"use strict";\r?\n/;

/**
 * The dashboard's script, read once at load. Its source is lib/dashboard/browser/*.ts, a TypeScript program of its
 * own (DOM types, no Node types, checked by `npm run typecheck`, linted for the browser) whose files share one scope;
 * `npm run build` concatenates them into one file. Here they become one classic script, wrapped in a function so
 * that nothing leaks onto `window`: the page's CSP runs only this script, so there is nothing to import at runtime.
 */
export const DASHBOARD_SCRIPT = asClassicScript(existsSync(BUILT) ? readFileSync(BUILT, 'utf8') : compileFromSource());

function asClassicScript(program: string): string {
  return `(function () {\n'use strict';\n${program.replace(USE_STRICT, '')}})();\n`;
}

/**
 * Running from source (ts-jest, ts-node) there is no build: the files are transpiled one by one, in the order the
 * tsconfig lists them, as `tsc` would concatenate them. No type check here: `npm run typecheck` does that.
 */
function compileFromSource(): string {
  if (!existsSync(SOURCE_CONFIG)) {
    throw new Error(`The dashboard's script is missing: neither ${BUILT} nor its source was found (run npm run build).`);
  }
  // Only in a checkout, where typescript is a dev dependency; the package never reaches this line.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof TypeScript;
  const read = ts.readConfigFile(SOURCE_CONFIG, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, BROWSER_DIR);
  const { outFile: _outFile, ...compilerOptions } = config.options;
  return config.fileNames
    .map((file) => ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file }).outputText.replace(USE_STRICT, ''))
    .join('');
}
