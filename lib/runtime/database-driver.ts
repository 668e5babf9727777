import { DriverNotInstalledError } from '../errors/driver-not-installed.error';
import { UnsupportedDriverError } from '../errors/unsupported-driver.error';
import { SqliteDriverName } from '../interfaces/sqlite-queue-module-options.interface';
import { MODULE_DEFAULTS } from '../module-defaults.constants';
import { InstalledPackages, majorVersion } from './installed-packages';

/** The command that installs each driver package, in the versions this library is tested with. */
const INSTALL_COMMANDS: Record<string, string> = {
  sqlite3: 'npm install sqlite3',
  'better-sqlite3': 'npm install better-sqlite3@12',
  pg: 'npm install pg',
};

/**
 * The SQLite driver used when the options name none: `sqlite3` on TypeORM 0.3 (as it always was), and
 * `better-sqlite3` from TypeORM 1 on, which removed the `sqlite3` driver.
 */
export function defaultSqliteDriver(packages: InstalledPackages): SqliteDriverName {
  return majorVersion(packages.typeormVersion()) >= 1 ? 'better-sqlite3' : MODULE_DEFAULTS.driver;
}

/**
 * Checks, before anything is opened, that the driver the module will open its connection with exists in the
 * installed TypeORM and is installed itself. `driver` is undefined when the application lends its own
 * DataSource (its driver is already loaded); `postgres` when the module opens a PostgreSQL connection.
 */
export function assertDriverUsable(driver: SqliteDriverName | 'pg' | undefined, packages: InstalledPackages): void {
  if (driver === undefined) return;
  if (driver === 'sqlite3' && majorVersion(packages.typeormVersion()) >= 1) {
    throw new UnsupportedDriverError(driver, packages.typeormVersion(), 'better-sqlite3', INSTALL_COMMANDS['better-sqlite3']);
  }
  assertDriverInstalled(driver, packages);
}

/** Throws `DriverNotInstalledError`, naming the command that installs it, when the driver package is not installed. */
export function assertDriverInstalled(driver: SqliteDriverName | 'pg', packages: InstalledPackages): void {
  if (!packages.has(driver)) throw new DriverNotInstalledError(driver, INSTALL_COMMANDS[driver]);
}
