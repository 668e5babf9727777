/**
 * The backends a test file runs against, as an explicit fixture: `describeEachBackend('...', (backend) => ...)`
 * runs its block once per backend of this run, and everything the block opens names that backend. No module or
 * storage is patched: a test's database options are what `backend.tempDatabase().options` says they are.
 *
 * Backends: `sqlite3` and `better-sqlite3` (the two SQLite drivers, on a temporary file each), and `postgres` (a
 * fresh schema per database on the test server) when a server answered at the start of the run; when none did,
 * jest.config.js prints the skip notice at the start and at the end of the run. No jest globals at import time
 * except in the describe helpers: child processes import the types only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestingModule, Test } from '@nestjs/testing';
import type { LoggerService, ModuleMetadata } from '@nestjs/common';
import type { SqliteQueueModuleOptions } from '../../lib/interfaces/sqlite-queue-module-options.interface';
import { QueueRuntime } from '../../lib/runtime/queue-runtime';
import { SqliteQueueModule } from '../../lib/sqlite-queue.module';
import { copyPostgresTemplate } from './postgres-template';
import { copySqliteTemplate, migratePostgresSchema } from './template-database';
import { postgresSchemaFor, postgresTestUrl } from './test-backend';
import { TEST_SHUTDOWN_TIMEOUT } from './test-timings';

/** The backends the suite knows. */
export type BackendName = 'sqlite3' | 'better-sqlite3' | 'postgres';

/**
 * The options of `forRoot` that say where the queue lives, and the suite's `shutdownTimeout` (test-timings.ts), which
 * every test app needs and a test may override (the rest is the test's).
 */
export type ConnectionOptions = Pick<SqliteQueueModuleOptions, 'database' | 'driver' | 'postgres' | 'shutdownTimeout'>;

/** One database of one backend, fresh for a test. */
export interface TestDatabase {
  /** A temporary folder of the test's own, for logs and files beside the database. */
  readonly dir: string;
  /** The SQLite file (on PostgreSQL a path in `dir` that nothing opens: it names the schema and log files). */
  readonly path: string;
  /** What `forRoot` needs to open this database: spread it into the options (`{ ...db.options, pollInterval }`). */
  readonly options: ConnectionOptions;
  /** Removes the folder (a PostgreSQL schema is dropped by the global teardown of the run). */
  cleanup(): void;
}

/** What `startApp` builds: the module's options beyond the connection, and the rest of the testing module. */
export interface AppSpec extends Omit<ModuleMetadata, 'imports'> {
  /** Options of `forRoot` beyond the connection (which comes from the database). */
  module?: Omit<SqliteQueueModuleOptions, 'database' | 'driver' | 'postgres'> & Partial<ConnectionOptions>;
  /** Further imports beside `SqliteQueueModule.forRoot(...)`. */
  imports?: ModuleMetadata['imports'];
  /** Replace the whole imports list (forRootAsync tests); `module` is ignored then. */
  replaceImports?: boolean;
  /** The app's logger (`setLogger` of the testing module builder). */
  logger?: LoggerService;
}

/** One backend of this run. */
export interface Backend {
  readonly name: BackendName;
  /** `sqlite` for both SQLite drivers. */
  readonly kind: 'sqlite' | 'postgres';
  /** The SQLite driver (undefined on PostgreSQL). */
  readonly driver: 'sqlite3' | 'better-sqlite3' | undefined;
  /** A fresh database of this backend: nothing in it, the first app migrates it from step 1. */
  tempDatabase(name?: string): TestDatabase;
  /**
   * A database of this backend already at the newest schema (template-database.ts): what most tests need, at a
   * fraction of a migration's cost. Tests of migrations, upgrades and schema checks use `tempDatabase`.
   */
  migratedDatabase(name?: string): Promise<TestDatabase>;
}

type SqliteDriver = 'sqlite3' | 'better-sqlite3';

/** The environment variable jest.config.js sets when PostgreSQL did not answer (see probe-postgres.js). */
const POSTGRES_SKIPPED_ENV = 'QUEUE_TEST_POSTGRES_SKIPPED';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'sqlite-queue-test-'));
}

function sqliteBackend(driver: SqliteDriver): Backend {
  return {
    name: driver,
    kind: 'sqlite',
    driver,
    tempDatabase(name = 'queue.sqlite') {
      const dir = tempDir();
      const path = join(dir, name);
      const options = { database: path, driver, shutdownTimeout: TEST_SHUTDOWN_TIMEOUT };
      return { dir, path, options, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
    async migratedDatabase(name) {
      const db = this.tempDatabase(name);
      copySqliteTemplate(db.path);
      return db;
    },
  };
}

const postgresBackend: Backend = {
  name: 'postgres',
  kind: 'postgres',
  driver: undefined,
  tempDatabase(name = 'queue.sqlite') {
    const dir = tempDir();
    const path = join(dir, name);
    return {
      dir,
      path,
      options: { postgres: { url: postgresTestUrl(), schema: postgresSchemaFor(path) }, shutdownTimeout: TEST_SHUTDOWN_TIMEOUT },
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  async migratedDatabase(name) {
    const db = this.tempDatabase(name);
    const { url, schema } = db.options.postgres!;
    if (!(await copyPostgresTemplate(url!, schema!))) await migratePostgresSchema(url!, schema!);
    return db;
  },
};

/** Every backend by name, whether or not it runs now (child processes and the contract suite pick by name). */
export const BACKENDS_BY_NAME: Record<BackendName, Backend> = {
  sqlite3: sqliteBackend('sqlite3'),
  'better-sqlite3': sqliteBackend('better-sqlite3'),
  postgres: postgresBackend,
};

/** The environment variable that narrows a run to some backends (`QUEUE_TEST_BACKENDS=sqlite3`: the quick loop). */
const BACKENDS_ENV = 'QUEUE_TEST_BACKENDS';

/**
 * The backends of this run: both SQLite drivers, and PostgreSQL unless the run found no server; narrowed to the
 * names in `QUEUE_TEST_BACKENDS` (comma-separated) when that is set, as `npm run test:quick` does.
 */
export function availableBackends(): Backend[] {
  const postgres = process.env[POSTGRES_SKIPPED_ENV] ? [] : [postgresBackend];
  const all = [BACKENDS_BY_NAME.sqlite3, BACKENDS_BY_NAME['better-sqlite3'], ...postgres];
  const chosen = process.env[BACKENDS_ENV];
  if (!chosen) return all;
  const names = chosen.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(name in BACKENDS_BY_NAME));
  if (unknown.length)
    throw new Error(`${BACKENDS_ENV}: unknown backend(s) ${unknown.join(', ')}; known: ${Object.keys(BACKENDS_BY_NAME).join(', ')}`);
  return all.filter((backend) => names.includes(backend.name));
}

/** Which backends a block applies to. */
export type BackendFilter = 'all' | 'sqlite' | 'postgres' | BackendName[];

function matches(backend: Backend, filter: BackendFilter): boolean {
  if (filter === 'all') return true;
  if (filter === 'sqlite' || filter === 'postgres') return backend.kind === filter;
  return filter.includes(backend.name);
}

/**
 * `describe(name)` once per backend of this run that `only` admits, named `[backend] name`. When none is
 * available (PostgreSQL-only tests without a server), one skipped block says so.
 */
export function describeEachBackend(name: string, body: (backend: Backend) => void, only: BackendFilter = 'all'): void {
  const backends = availableBackends().filter((backend) => matches(backend, only));
  if (backends.length === 0) {
    describe.skip(`${name} (no backend of ${JSON.stringify(only)} in this run)`, () => it('skipped', () => undefined));
    return;
  }
  for (const backend of backends) describe(`[${backend.name}] ${name}`, () => body(backend));
}

/** `describeEachBackend` for tests that only make sense on SQLite (they open the file, count SQLite statements...). */
export function describeEachSqlite(name: string, body: (backend: Backend) => void): void {
  describeEachBackend(name, body, 'sqlite');
}

/** `describeEachBackend` for tests of the PostgreSQL backend itself. */
export function describePostgres(name: string, body: (backend: Backend) => void): void {
  describeEachBackend(name, body, 'postgres');
}

/** `it` when `condition` holds (e.g. `backend.kind === 'sqlite'`), else `it.skip`: a test that applies to some backends. */
export function itWhen(condition: boolean): jest.It {
  return condition ? it : it.skip;
}

/**
 * Closes an app; after a failed `init()` Nest's `close()` re-throws the init error and runs no shutdown hook, so
 * the module is asked to release what it opened through its own shutdown hook.
 */
export async function closeApp(app: TestingModule): Promise<void> {
  try {
    await app.close();
  } catch {
    const factory = app.get(QueueRuntime, { strict: false });
    await factory.onApplicationShutdown().catch(() => undefined);
  }
}

/** What `perTestApp(backend)` hands a describe block: the current test's database, its app, and the one app helper. */
export interface PerTestApp {
  readonly backend: Backend;
  readonly db: TestDatabase;
  /** The app a test set itself; closed (and cleared) after it, with every app `startApp` built. */
  app: TestingModule | undefined;
  /**
   * Compiles and initialises an app on the current test's database (or `db`): `SqliteQueueModule.forRoot({
   * ...db.options, ...spec.module })` plus `spec.imports` and `spec.providers`. Closed after the test.
   */
  startApp(spec?: AppSpec, db?: TestDatabase): Promise<TestingModule>;
  /** Like `startApp` without `init()`: for tests of a failing boot (the app is still closed after the test). */
  compileApp(spec?: AppSpec, db?: TestDatabase): Promise<TestingModule>;
  /** Closes an app before the test ends (and stops tracking it). */
  close(app: TestingModule): Promise<void>;
  /** A further fresh (unmigrated) database of the same backend, removed after the test. */
  otherDatabase(name?: string): TestDatabase;
}

/** How `perTestApp` makes each test's database. */
export interface PerTestAppOptions {
  /**
   * Each test gets a database already at the newest schema (`backend.migratedDatabase()`), which its app still
   * checks at boot: for every file that is not about migrations, upgrades or schema checks. Without it a test gets a
   * fresh, unmigrated database (`backend.tempDatabase()`) that its first app migrates from step 1.
   */
  migrated?: boolean;
}

/**
 * Compiles (does not initialise) an app on `db`: `SqliteQueueModule.forRoot({ ...db.options, ...spec.module })` plus
 * `spec.imports` and the rest of the spec's module metadata, with `spec.logger` if given; `replaceImports` keeps only
 * `spec.imports`. The one app builder of perTestApp, withTestApps and withProcessScenario.
 */
export async function compileTestApp(db: TestDatabase, spec: AppSpec = {}): Promise<TestingModule> {
  const imports = spec.replaceImports
    ? (spec.imports ?? [])
    : [SqliteQueueModule.forRoot({ ...db.options, ...spec.module }), ...(spec.imports ?? [])];
  const { module: _module, imports: _imports, replaceImports: _replace, logger, ...metadata } = spec;
  const builder = Test.createTestingModule({ ...metadata, imports });
  return (logger ? builder.setLogger(logger) : builder).compile();
}

/** `perTestApp(backend, MIGRATED)`: each test on a migrated copy (see `PerTestAppOptions.migrated`). */
export const MIGRATED: PerTestAppOptions = { migrated: true };

/**
 * Registers, in the calling describe block, a database of its own for each test (fresh, or `migrated`) and,
 * after it, closes the apps the test started (or set as `app`) and removes the database.
 */
export function perTestApp(backend: Backend, options: PerTestAppOptions = {}): PerTestApp {
  let db: TestDatabase | undefined;
  const extra: TestDatabase[] = [];
  const apps: TestingModule[] = [];
  const compileApp = async (spec: AppSpec = {}, on?: TestDatabase): Promise<TestingModule> => {
    const app = await compileTestApp(on ?? state.db, spec);
    apps.push(app);
    return app;
  };
  const state: PerTestApp = {
    backend,
    get db(): TestDatabase {
      if (!db) throw new Error('perTestApp().db read outside a test');
      return db;
    },
    app: undefined,
    compileApp,
    async startApp(spec, on) {
      const app = await compileApp(spec, on);
      await app.init();
      return app;
    },
    async close(app) {
      if (apps.includes(app)) apps.splice(apps.indexOf(app), 1);
      if (state.app === app) state.app = undefined;
      await app.close();
    },
    otherDatabase(name) {
      const other = backend.tempDatabase(name);
      extra.push(other);
      return other;
    },
  };
  beforeEach(async () => {
    db = options.migrated ? await backend.migratedDatabase() : backend.tempDatabase();
  });
  afterEach(async () => {
    const open = [...new Set([...apps.splice(0).reverse(), ...(state.app ? [state.app] : [])])];
    state.app = undefined;
    for (const app of open) await closeApp(app);
    db?.cleanup();
    db = undefined;
    extra.splice(0).forEach((other) => other.cleanup());
  });
  return state;
}

/** What `perFileApp(backend, spec)` hands a describe block: one app for all of its tests, and its database. */
export interface PerFileApp {
  readonly db: TestDatabase;
  readonly app: TestingModule;
  /** `app.get(token)`, for the block's tests. */
  get<T>(token: new (...args: never[]) => T): T;
}

/**
 * One app for every test of the calling describe block, on a migrated database: started before the first test,
 * closed after the last. For blocks whose tests only show that bad input is refused before any SQL runs and that
 * nothing was written, so no test of the block may write (one that must, say to prove a bad update leaves a row
 * as it was, belongs in a `perTestApp` block): a boot per test would only repeat the same boot.
 */
export function perFileApp(backend: Backend, spec: AppSpec = {}): PerFileApp {
  let db: TestDatabase | undefined;
  let app: TestingModule | undefined;
  const state: PerFileApp = {
    get db(): TestDatabase {
      if (!db) throw new Error('perFileApp().db read outside the block');
      return db;
    },
    get app(): TestingModule {
      if (!app) throw new Error('perFileApp().app read outside the block');
      return app;
    },
    get: (token) => state.app.get(token),
  };
  beforeAll(async () => {
    db = await backend.migratedDatabase();
    const { module: options, imports = [], replaceImports: _replace, logger, ...metadata } = spec;
    const builder = Test.createTestingModule({
      ...metadata,
      imports: [SqliteQueueModule.forRoot({ ...db.options, ...options }), ...imports],
    });
    app = await (logger ? builder.setLogger(logger) : builder).compile();
    await app.init();
  });
  afterAll(async () => {
    if (app) await closeApp(app);
    db?.cleanup();
    app = undefined;
    db = undefined;
  });
  return state;
}
