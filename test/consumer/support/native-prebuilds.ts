import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The native SQLite drivers, which install through prebuild-install, else compile from source (~90 s each), and
 * the addon each loads. Only that one goes into the archive: prebuild-install `require()`s the last `.node` file
 * it unpacks, and better-sqlite3 also builds a SQLite extension (`test_extension.node`) that is no Node addon.
 */
const NATIVE_ADDONS = { sqlite3: 'node_sqlite3.node', 'better-sqlite3': 'better_sqlite3.node' } as const;
const NATIVE_PACKAGES = Object.keys(NATIVE_ADDONS) as (keyof typeof NATIVE_ADDONS)[];

/**
 * Environment that makes prebuild-install look for each native driver's binary in `dir` first (its
 * `npm_config_<package>_local_prebuilds` setting), before it tries a download (impossible here) and falls back
 * to a compile.
 */
export function localPrebuildsEnv(dir: string): Record<string, string> {
  return Object.fromEntries(NATIVE_PACKAGES.map((name) => [`npm_config_${name.replace(/[^a-zA-Z0-9]/g, '_')}_local_prebuilds`, dir]));
}

/**
 * After an install compiled a native driver, stores its binary in `dir` under the names prebuild-install asks for,
 * so the next install of the same version (in any consumer app, on any later run) unpacks it instead of
 * compiling. Returns the files it added.
 */
export function keepBuiltDrivers(appDir: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const added: string[] = [];
  for (const [packageDir, name] of installedDrivers(join(appDir, 'node_modules'))) {
    const addon = `build/Release/${NATIVE_ADDONS[name]}`;
    if (!existsSync(join(packageDir, addon))) continue;
    for (const file of prebuildNames(packageDir)) {
      const target = join(dir, file);
      if (existsSync(target)) continue;
      // Written aside and renamed, so a run that dies mid-write leaves no truncated archive behind.
      execFileSync('tar', ['-czf', `${target}.tmp`, '-C', packageDir, addon]);
      renameSync(`${target}.tmp`, target);
      added.push(file);
    }
  }
  return added;
}

/**
 * The native drivers installed in `nodeModules`, under their own name or an alias (the repository's
 * `sqlite3-v6`, `npm:sqlite3@6`, which `npm ci` builds so that no consumer install compiles the version a user's
 * plain `npm install sqlite3` gets): each folder with the package it holds.
 */
function installedDrivers(nodeModules: string): [string, keyof typeof NATIVE_ADDONS][] {
  if (!existsSync(nodeModules)) return [];
  const found: [string, keyof typeof NATIVE_ADDONS][] = [];
  for (const folder of readdirSync(nodeModules)) {
    if (!NATIVE_PACKAGES.some((name) => folder === name || folder.startsWith(`${name}-`))) continue;
    const manifest = join(nodeModules, folder, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
    const native = NATIVE_PACKAGES.find((candidate) => candidate === name);
    if (native) found.push([join(nodeModules, folder), native]);
  }
  return found;
}

/** prebuild-install's asset name `{name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz`, per N-API version if any. */
function prebuildNames(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    scripts?: { install?: string };
    binary?: { napi_versions?: number[] };
  };
  const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
  const suffix = `${process.platform}${process.platform === 'linux' && !glibc ? 'musl' : ''}-${process.arch}.tar.gz`;
  const napi = /-r napi\b|--runtime napi\b/.test(manifest.scripts?.install ?? '');
  const abis = napi ? (manifest.binary?.napi_versions ?? []).map((version) => `napi-v${version}`) : [`node-v${process.versions.modules}`];
  return abis.map((abi) => `${manifest.name}-v${manifest.version}-${abi}-${suffix}`);
}
