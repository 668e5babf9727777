/**
 * The command of docs/cli.md runs from a checkout too: `npm install` marks the package's own `bin` executable, but
 * every later `npm run build` (also run by `npm pack`) deletes `dist/` and tsc writes the file again without the
 * executable bit, so `npx nestjs-sqlite-queue` then failed with "Permission denied". The build script marks it again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
  bin: Record<string, string>;
  scripts: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as Manifest;

describe('package.json', () => {
  it.each(Object.entries(manifest.bin))('the build script makes the bin %s (%s) executable', (_, path) => {
    const file = path.replace(/^\.\//, '');
    expect(manifest.scripts.build).toContain(`chmodSync('${file}', 0o755)`);
    // After everything that rewrites dist/.
    expect(manifest.scripts.build.lastIndexOf('chmodSync')).toBeGreaterThan(manifest.scripts.build.lastIndexOf('tsc '));
  });
});
