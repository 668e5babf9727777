import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverNotInstalledError } from '../lib';
import { promoteQueueDatabase } from '../lib/cli/promote/promote-queue-database';
import { installedPackages } from '../lib/runtime/installed-packages';
import { runCliInProcess } from './support/cli-in-process';

/**
 * `--driver better-sqlite3` on a machine without that package: the CLI says which package is missing and the
 * command that installs it (DriverNotInstalledError, exit 3), as forRoot does. It used to fail with
 * "DatabaseOpenError: ... unexpected database error (Cannot find module 'better-sqlite3' Require stack: ...)".
 */
describe('the CLI with a SQLite driver that is not installed', () => {
  let dir: string;
  let file: string;
  let has: jest.SpyInstance;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-driver-missing-'));
    file = join(dir, 'queue.sqlite');
    writeFileSync(file, '');
    const real = installedPackages.has.bind(installedPackages);
    has = jest.spyOn(installedPackages, 'has').mockImplementation((name) => name !== 'better-sqlite3' && real(name));
  });
  afterEach(() => {
    has.mockRestore();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([['status'], ['jobs', 'email'], ['retry', '--failed', 'email'], ['migrate', '--dry-run']])(
    '%s: DriverNotInstalledError naming the install command, exit 3',
    async (...command) => {
      const run = await runCliInProcess([...command, '--database', file, '--driver', 'better-sqlite3']);
      expect(run.stderr).toContain('error: DriverNotInstalledError: The queue needs the "better-sqlite3" package');
      expect(run.stderr).toContain('npm install better-sqlite3@12');
      expect(run.code).toBe(3);
    },
  );

  it('promote refuses before it opens anything', async () => {
    const promoted = promoteQueueDatabase({
      from: file,
      driver: 'better-sqlite3',
      to: 'postgres://127.0.0.1:1/none',
      toLabel: 'postgres://127.0.0.1:1/none',
      schema: 'none',
    });
    await expect(promoted).rejects.toBeInstanceOf(DriverNotInstalledError);
  });
});
