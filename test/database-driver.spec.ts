/**
 * Unit tests of which database driver the module opens and when it refuses one (lib/runtime/database-driver.ts,
 * through resolveModuleOptions). TypeORM 1 is proven for real by test/consumer/consumer-apps.consumer-spec.ts;
 * here a stand-in says which TypeORM and which drivers the application has.
 */
import { DataSource } from 'typeorm';
import { DriverNotInstalledError, SqliteQueueError, UnsupportedDriverError } from '../lib';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { InstalledPackages, installedPackages, majorVersion } from '../lib/runtime/installed-packages';

function packages(typeormVersion: string, installed: string[] = ['sqlite3', 'better-sqlite3', 'pg']): InstalledPackages {
  return { typeormVersion: () => typeormVersion, has: (name) => installed.includes(name) };
}

describe('database driver selection', () => {
  it('reads the TypeORM version the application resolves', () => {
    expect(installedPackages.typeormVersion()).toMatch(/^0\.3\.\d+/);
    expect(majorVersion('1.1.1')).toBe(1);
    expect(majorVersion('0.3.31')).toBe(0);
  });

  it("defaults to 'sqlite3' on TypeORM 0.3 (unchanged) and to 'better-sqlite3' on TypeORM 1", () => {
    expect(resolveModuleOptions({}, packages('0.3.31')).driver).toBe('sqlite3');
    expect(resolveModuleOptions({}, packages('1.1.1')).driver).toBe('better-sqlite3');
    expect(resolveModuleOptions({ driver: 'better-sqlite3' }, packages('0.3.31')).driver).toBe('better-sqlite3');
  });

  it("refuses driver: 'sqlite3' on TypeORM 1 with a typed error that names the fix", () => {
    const attempt = () => resolveModuleOptions({ driver: 'sqlite3' }, packages('1.1.1'));
    expect(attempt).toThrow(UnsupportedDriverError);
    expect(attempt).toThrow('Use driver: \'better-sqlite3\' (or leave "driver" out) and run `npm install better-sqlite3@12`');
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(SqliteQueueError);
      expect(error).toMatchObject({
        name: 'UnsupportedDriverError',
        driver: 'sqlite3',
        typeormVersion: '1.1.1',
        suggestedDriver: 'better-sqlite3',
      });
    }
  });

  it('names the package to install when the driver the module would open is missing', () => {
    expect(() => resolveModuleOptions({}, packages('0.3.31', ['better-sqlite3']))).toThrow(
      new DriverNotInstalledError('sqlite3', 'npm install sqlite3'),
    );
    expect(() => resolveModuleOptions({}, packages('1.1.1', ['sqlite3']))).toThrow('Run `npm install better-sqlite3@12`');
    expect(() => resolveModuleOptions({ postgres: { url: 'postgres://localhost/db' } }, packages('1.1.1', ['better-sqlite3']))).toThrow(
      new DriverNotInstalledError('pg', 'npm install pg'),
    );
  });

  it("checks nothing for a lent DataSource (its driver is loaded already), and 'driver' is ignored there", () => {
    const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    expect(() => resolveModuleOptions({ dataSource, driver: 'sqlite3' }, packages('1.1.1', []))).not.toThrow();
  });
});
