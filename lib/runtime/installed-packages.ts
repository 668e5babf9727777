import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What the module needs to know about the packages installed beside it (the application's, as peers). */
export interface InstalledPackages {
  /** The version of the `typeorm` the application resolves, e.g. `'0.3.31'` or `'1.1.1'`. */
  typeormVersion(): string;
  /** Whether `require()` finds the package from here (that is, in the application). */
  has(name: string): boolean;
}

/**
 * The packages the application really has. TypeORM's version is read from its package.json next to its entry
 * point: TypeORM 1's `exports` map does not expose `typeorm/package.json`, and a feature test of its driver list
 * would need a private import.
 */
export const installedPackages: InstalledPackages = {
  typeormVersion: () => (typeormVersion ??= readTypeormVersion()),
  has(name) {
    try {
      require.resolve(name);
      return true;
    } catch {
      return false;
    }
  },
};

let typeormVersion: string | undefined;

function readTypeormVersion(): string {
  let dir = dirname(require.resolve('typeorm'));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'typeorm' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No manifest at this level: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}

/** The major version of a semver string (`'0.3.31'` → 0, `'1.1.1'` → 1). */
export function majorVersion(version: string): number {
  return Number.parseInt(version, 10) || 0;
}
