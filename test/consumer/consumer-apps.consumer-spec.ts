/**
 * The consumer test: the library as an application gets it. It packs the tarball (`npm pack`, which builds
 * dist through `prepack`), creates throwaway applications in a temp directory as `nest new` makes them, runs
 * the README's install command for each combination there (plain `npm install`, no flags), compiles
 * test/consumer/app/main.ts with the app's own `tsc` in strict mode, and runs it with node: boot, add a job
 * through QueueProducer, see it completed, `app.close()`, and exit by itself. None of those installs warns about
 * the library's own scripts (npm 11 lists a tarball's `prepare` as "not yet covered by allowScripts", so the packed
 * manifest has none); an install from git (`git+file://`) still builds dist (npm runs `prepare` in its clone).
 *
 * Speed: the installs run side by side (started before the first test; each test awaits its own), and the install
 * from git starts before `npm pack`, beside it: it needs the working tree, not the tarball. They use the user's npm
 * cache (the one `npm ci` has just filled with every development dependency, which the install from git installs
 * again in its clone), offline first (`prefer-offline`: what the cache holds is not asked for again), unless
 * QUEUE_TEST_CONSUMER_CACHE names a directory of their own. The native drivers are compiled once: `npm ci` builds the
 * versions a user's plain install gets (better-sqlite3 12, and sqlite3 6 under the development alias `sqlite3-v6`),
 * and each binary built by the repository's install or by an app's is kept (under the OS temp dir, or QUEUE_TEST_CONSUMER_CACHE) and handed to prebuild-install by the
 * next install of the same version. QUEUE_TEST_CONSUMER=off skips the test on purpose, and says so.
 * The PostgreSQL app follows jest.config.js: skipped, with the notice, when no server answers.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { postgresTestUrl } from '../support/test-backend';
import { keepBuiltDrivers, localPrebuildsEnv } from './support/native-prebuilds';

const REPO = resolve(__dirname, '..', '..');
const OWN_CACHE = process.env.QUEUE_TEST_CONSUMER_CACHE;
const CACHE = OWN_CACHE ?? join(tmpdir(), 'nestjs-sqlite-queue-consumer-cache');
/**
 * The npm cache of every install: a directory of its own under QUEUE_TEST_CONSUMER_CACHE, else the user's (the one
 * the outer `npm test` passes down, else npm's default). Outside CI that cache is warm with the library's
 * development dependencies, which the install from git installs again; a cache of its own was cold on every new
 * machine, and the git install downloaded all of them again.
 */
const NPM_CACHE: string | undefined = OWN_CACHE ? join(OWN_CACHE, 'npm') : process.env.npm_config_cache;
const PREBUILDS = join(CACHE, 'prebuilds');
/** When the file started: the timings below say when each step began, to show what overlapped. */
const STARTED = Date.now();
const POSTGRES_URL = postgresTestUrl();
const POSTGRES_SKIPPED = process.env.QUEUE_TEST_POSTGRES_SKIPPED;
const OFF = process.env.QUEUE_TEST_CONSUMER === 'off';
/** A cold run compiles two native drivers on a loaded 2-core machine. */
const APP_TIMEOUT_MS = 15 * 60_000;

/** One combination a user can have, and the one command the README gives for it. */
interface ConsumerApp {
  name: string;
  /** package.json as the Nest CLI of that version generates it (the parts that matter here). */
  manifest: Record<string, unknown>;
  tsconfig: Record<string, unknown>;
  /** The README's `npm install nestjs-sqlite-queue …` for this combination, minus the package name (the tarball). */
  install: string[];
  postgres?: boolean;
  /** TypeORM 1: `driver: 'sqlite3'` must fail with UnsupportedDriverError. */
  expectSqlite3Refused?: boolean;
}

const NEST_APP_COMPILER_OPTIONS = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  resolvePackageJsonExports: true,
  esModuleInterop: true,
  isolatedModules: true,
  emitDecoratorMetadata: true,
  experimentalDecorators: true,
  target: 'ES2023',
  types: ['node'],
  outDir: './dist',
  rootDir: './src',
  skipLibCheck: true,
  strict: true,
};

const APPS: ConsumerApp[] = [
  {
    // CommonJS, as `nest new` made apps for Nest 11 (TypeScript 5, module nodenext without "type": "module").
    name: 'nest11-typeorm03-sqlite3',
    manifest: {
      dependencies: { '@nestjs/common': '^11.0.1', '@nestjs/core': '^11.0.1', 'reflect-metadata': '^0.2.2', rxjs: '^7.8.1' },
      devDependencies: { '@types/node': '^20.19.0', typescript: '^5.7.3' },
    },
    tsconfig: NEST_APP_COMPILER_OPTIONS,
    install: ['typeorm@0.3', 'sqlite3'],
  },
  {
    // ESM, as `nest new` makes apps for Nest 12 today ("type": "module", TypeScript 6, module nodenext), and one
    // that already has @nestjs/terminus, whose peers once made the install fail.
    name: 'nest12-typeorm1-better-sqlite3-esm',
    manifest: {
      type: 'module',
      dependencies: {
        '@nestjs/common': '^12.0.1',
        '@nestjs/core': '^12.0.1',
        '@nestjs/terminus': '^12.0.0',
        'reflect-metadata': '^0.2.2',
        rxjs: '^7.8.1',
      },
      devDependencies: { '@types/node': '^24.0.0', typescript: '^6.0.2' },
    },
    tsconfig: NEST_APP_COMPILER_OPTIONS,
    install: ['typeorm@1', 'better-sqlite3@12'],
    expectSqlite3Refused: true,
  },
  {
    // NestJS 12 (ESM) on TypeORM 0.3 and node-sqlite3: the default driver there stays sqlite3.
    name: 'nest12-typeorm03-sqlite3-esm',
    manifest: {
      type: 'module',
      dependencies: { '@nestjs/common': '^12.0.1', '@nestjs/core': '^12.0.1', 'reflect-metadata': '^0.2.2', rxjs: '^7.8.1' },
      devDependencies: { '@types/node': '^24.0.0', typescript: '^6.0.2' },
    },
    tsconfig: NEST_APP_COMPILER_OPTIONS,
    install: ['typeorm@0.3', 'sqlite3'],
  },
  {
    // An older CommonJS setup (module commonjs, node10 resolution: the `exports` map is not read by tsc there).
    name: 'nest11-typeorm1-postgres',
    manifest: {
      dependencies: { '@nestjs/common': '^11.0.1', '@nestjs/core': '^11.0.1', 'reflect-metadata': '^0.2.2', rxjs: '^7.8.1' },
      devDependencies: { '@types/node': '^20.19.0', typescript: '^5.7.3' },
    },
    tsconfig: { ...NEST_APP_COMPILER_OPTIONS, module: 'commonjs', moduleResolution: 'node10', resolvePackageJsonExports: undefined },
    install: ['typeorm@1', 'pg'],
    postgres: true,
  },
];

interface RunResult {
  code: number | null;
  output: string;
  ms: number;
}

/** Runs a command without a shell; npm's own variables from the outer `npm test` are left out, so each app is on its own. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<RunResult> {
  const started = Date.now();
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'));
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, output, ms: Date.now() - started }));
  });
}

async function runOk(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<RunResult> {
  return ok(await run(command, args, cwd, env), command, args, cwd);
}

/** The result of a command that exited 0; any other exit throws with the command and the end of its output. */
function ok(result: RunResult, command: string, args: string[], cwd: string): RunResult {
  if (result.code !== 0)
    throw new Error(`\`${command} ${args.join(' ')}\` in ${cwd} exited with ${result.code}:\n${result.output.slice(-6000)}`);
  return result;
}

const timings: string[] = [];

/** The header of npm 11's notice about dependencies' install scripts (warned, not refused, unless strict). */
const UNREVIEWED_SCRIPTS = 'install scripts not yet covered by allowScripts';

/** The lines of that notice that name the library itself (`nestjs-sqlite-queue@0.1.0 (prepare: npm run build)`). */
function ownScriptWarnings(output: string): string[] {
  return output.split('\n').filter((line) => /install-scripts\s+nestjs-sqlite-queue@/.test(line));
}

/**
 * npm's settings for every install and npx of this file, from the environment: the commands stay the README's.
 * `prefer-offline`: a package the cache holds is not revalidated with the registry (one request per package
 * otherwise, over 700 for the install from git); what it lacks is still fetched. The cache's metadata is as fresh
 * as the last `npm ci` or `npm install` that used it.
 */
const npmEnv: Record<string, string> = {
  ...(NPM_CACHE ? { npm_config_cache: NPM_CACHE } : {}),
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  ...localPrebuildsEnv(PREBUILDS),
};

/** A new app directory with a package.json as `nest new` makes it for NestJS 11 (CommonJS). */
function newAppDir(parent: string, name: string, manifest: Record<string, unknown>): string {
  const appDir = join(parent, name);
  mkdirSync(join(appDir, 'src'), { recursive: true });
  writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name, version: '0.0.0', private: true, ...manifest }, null, 2));
  return appDir;
}

/**
 * A git repository of the working tree as it is (tracked and untracked files, none that .gitignore names), one
 * commit: what `npm install git+file://...` clones, uncommitted changes included.
 */
function gitRepoOfWorkingTree(target: string): string {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(REPO, file)));
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(REPO, file), join(target, file));
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: target, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=consumer test', '-c', 'user.email=consumer@test.invalid', 'commit', '-q', '-m', 'working tree');
  return target;
}

function note(line: string): void {
  timings.push(line);
}

/** Seconds since the file started, for the timings. */
function at(): string {
  return `+${((Date.now() - STARTED) / 1000).toFixed(1)} s`;
}

/** The name under which the install from git is prepared beside the apps. */
const FROM_GIT = 'from-git';

/** An app installed (and, for the apps of APPS, compiled), ready for its test's checks. */
interface PreparedApp {
  appDir: string;
  installed: RunResult;
}

/**
 * Installs one app of APPS in `workDir`. Installs are most of this file's time and mostly wait on the disk and on
 * npm, so they run side by side (see `prepareApps`); each test then checks its own.
 */
async function installApp(workDir: string, tarball: string, app: ConsumerApp): Promise<PreparedApp> {
  const appDir = newAppDir(workDir, app.name, app.manifest);
  writeFileSync(join(appDir, 'tsconfig.json'), JSON.stringify({ compilerOptions: app.tsconfig, include: ['src'] }, null, 2));
  copyFileSync(join(__dirname, 'app', 'main.ts'), join(appDir, 'src', 'main.ts'));
  const start = at();
  const installed = await runOk('npm', ['install', tarball, ...app.install], appDir, npmEnv);
  const kept = keepBuiltDrivers(appDir, PREBUILDS);
  note(`${app.name}: npm install ${installed.ms} ms from ${start}${kept.length > 0 ? ` (compiled, kept ${kept.join(', ')})` : ''}`);
  return { appDir, installed };
}

/** Compiles an installed app with its own TypeScript, in strict mode. */
async function compileApp(app: ConsumerApp, prepared: PreparedApp): Promise<PreparedApp> {
  const { appDir } = prepared;
  const compiled = await runOk('node', [join(appDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], appDir);
  note(`${app.name}: tsc ${compiled.ms} ms`);
  return prepared;
}

/**
 * An app that installs the library from a git repository of the working tree. The repository is made at once (before
 * `npm pack` sets a stripped package.json in place for a moment); the install then runs beside the pack.
 */
async function prepareFromGit(workDir: string): Promise<PreparedApp> {
  // Until its first await this runs at once, in the caller's turn: the copy is made before the pack starts.
  const copied = Date.now();
  const gitDir = gitRepoOfWorkingTree(join(workDir, 'library-git'));
  note(`from git: repository of the working tree ${Date.now() - copied} ms`);
  // npm installs the library's development dependencies in its clone to build it: the drivers compiled for this
  // repository are handed to that install, which unpacks them instead of compiling.
  keepBuiltDrivers(REPO, PREBUILDS);
  const appDir = newAppDir(workDir, FROM_GIT, APPS[0].manifest);
  const start = at();
  const install = ['install', `git+file://${gitDir}`];
  const first = await run('npm', install, appDir, npmEnv);
  // The clone's install resolves the lockfile's versions through the packuments of the cache, which `prefer-offline`
  // does not revalidate: one older than a version the lockfile has since named (a dependency bumped after the cache
  // last saw that package) has no such version. Asked again, with revalidation, it does.
  const stale = first.code !== 0 && /\bETARGET\b/.test(first.output);
  if (stale) note(`from git: a cached packument lacked a version of the lockfile (ETARGET): installing again with prefer-online`);
  const installed = stale
    ? await runOk('npm', install, appDir, { ...npmEnv, npm_config_prefer_offline: 'false', npm_config_prefer_online: 'true' })
    : ok(first, 'npm', install, appDir);
  note(`from git: npm install (clone, its development dependencies, prepare's build) ${installed.ms} ms from ${start}`);
  return { appDir, installed };
}

/** The native driver an app's install compiles (or unpacks), if any: the apps that share one share a lane. */
function nativeDriverOf(app: ConsumerApp): string | undefined {
  return app.install.map((spec) => spec.replace(/(?<=.)@.*$/, '')).find((name) => name === 'sqlite3' || name === 'better-sqlite3');
}

/**
 * Starts the preparation of every app of APPS once the tarball exists, in lanes: the installs of apps with the same
 * native driver go one after the other, so that on a cold cache the second unpacks what the first compiled instead of
 * compiling it again; an app with no native driver has a lane of its own.
 */
function prepareApps(workDir: string, packed: Promise<string>, preparations: Map<string, Promise<PreparedApp>>): void {
  const lanes = new Map<string, Promise<unknown>>();
  for (const app of APPS) {
    if (app.postgres && POSTGRES_SKIPPED) continue;
    const lane = nativeDriverOf(app) ?? app.name;
    const previous = lanes.get(lane) ?? packed;
    const installed = previous
      .catch(() => undefined)
      .then(() => packed)
      .then((tarball) => installApp(workDir, tarball, app));
    // The next app of the lane needs this one's driver, not its compile: it starts once this install ended.
    lanes.set(lane, installed);
    preparations.set(
      app.name,
      installed.then((prepared) => compileApp(app, prepared)),
    );
  }
  // Each test awaits its own preparation and reports its failure; none is left unhandled meanwhile.
  for (const preparation of preparations.values()) preparation.catch(() => undefined);
}

(OFF ? describe.skip : describe)('consumer applications (packed tarball, plain npm install, tsc strict, node)', () => {
  let workDir: string;
  let tarball: string;
  let packedFiles: string[] = [];
  let packedManifest: { scripts?: Record<string, string> } = {};
  const preparations = new Map<string, Promise<PreparedApp>>();
  const prepared = (name: string): Promise<PreparedApp> => {
    const preparation = preparations.get(name);
    if (!preparation) throw new Error(`no preparation for ${name}: the tarball was not packed`);
    return preparation;
  };

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'nestjs-sqlite-queue-consumer-'));
    if (NPM_CACHE) mkdirSync(NPM_CACHE, { recursive: true });
    // The install from git needs the working tree, not the tarball: it starts first, and runs beside the pack.
    preparations.set(FROM_GIT, prepareFromGit(workDir));
    preparations.get(FROM_GIT)?.catch(() => undefined);
    const packing = runOk('npm', ['pack', '--json', '--pack-destination', workDir], REPO).then((packed) => {
      const [manifest] = JSON.parse(packed.output.slice(packed.output.indexOf('[\n'))) as { filename: string; files: { path: string }[] }[];
      note(`npm pack (builds dist): ${packed.ms} ms, done at ${at()}`);
      packedFiles = manifest.files.map((file) => file.path);
      return join(workDir, manifest.filename);
    });
    prepareApps(workDir, packing, preparations);
    tarball = await packing;
    packedManifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
  }, APP_TIMEOUT_MS);

  afterAll(async () => {
    // A test that failed early leaves installs running: they end before their directory goes.
    await Promise.allSettled(preparations.values());
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    note(`whole file: ${Date.now() - STARTED} ms`);
    process.stderr.write(
      `\nconsumer test timings (npm cache ${NPM_CACHE ?? "npm's default"}, prebuilds ${PREBUILDS}):\n  ${timings.join('\n  ')}\n\n`,
    );
  });

  it('the tarball holds dist (code, types, maps with their sources), every docs page, the changelog, CONTRIBUTING, the bench reports and notes, LICENSE, README and package.json, nothing else', () => {
    // Every page the docs link to ships: the README, docs/ and the bench notes link each other
    // (test/packed-docs.spec.ts checks that each link stays inside the package).
    const docsPages = readdirSync(join(REPO, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/${file.split('\\').join('/')}`);
    const benchNotes = readdirSync(join(REPO, 'bench', 'notes'))
      .filter((file) => file.endsWith('.md'))
      .map((file) => `bench/notes/${file}`);
    const benchReports = ['bench/README.md', 'bench/RESULTS.md', 'bench/throughput.svg'];
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/terminus.js',
        'dist/dashboard.js',
        // The dashboard's page script, compiled from lib/dashboard/browser/ and read by the server at load.
        'dist/dashboard/browser/dashboard.browser.js',
      ]),
    );
    expect(packedFiles.filter((file) => !/^dist\/.+\.(js|js\.map|d\.ts)$/.test(file)).sort()).toEqual(
      ['CHANGELOG.md', 'CONTRIBUTING.md', 'LICENSE', 'README.md', ...docsPages, ...benchReports, ...benchNotes, 'package.json'].sort(),
    );
    // lib/ is not shipped, so a map is only useful with the TypeScript inside it.
    const map = JSON.parse(readFileSync(join(REPO, 'dist', 'index.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
    expect(map.sourcesContent).toHaveLength(map.sources.length);
    expect(map.sourcesContent?.[0]).toContain('export { SqliteQueueModule }');
  });

  it('the packed manifest has no prepare (no install script of its own), the repository keeps it, and pack left package.json as it was', () => {
    const repoManifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(repoManifest.scripts.prepare).toBe('npm run build');
    expect(packedManifest.scripts).not.toHaveProperty('prepare');
    expect(packedManifest.scripts).toMatchObject({ build: repoManifest.scripts.build, prepack: repoManifest.scripts.prepack });
    expect(existsSync(join(REPO, 'package.json.full'))).toBe(false);
    for (const event of ['preinstall', 'install', 'postinstall']) expect(packedManifest.scripts).not.toHaveProperty(event);
  });

  for (const app of APPS) {
    const skipReason = app.postgres && POSTGRES_SKIPPED;
    if (skipReason) {
      it.skip(`${app.name}: skipped, no PostgreSQL server`, () => undefined);
      process.stderr.write(`\n*** consumer app ${app.name} SKIPPED: ${skipReason}\n`);
      continue;
    }
    it(
      `${app.name}: npm install nestjs-sqlite-queue ${app.install.join(' ')}, tsc strict, boot, one job completed, clean close`,
      async () => {
        const { appDir, installed } = await prepared(app.name);
        // npm 11 may list the drivers' own install scripts; never the library's.
        expect(ownScriptWarnings(installed.output)).toEqual([]);

        const schema = `consumer_${process.pid}_${Date.now()}`;
        const env: Record<string, string> = app.postgres
          ? { CONSUMER_POSTGRES_URL: POSTGRES_URL, CONSUMER_POSTGRES_SCHEMA: schema }
          : {
              CONSUMER_DATABASE: join(appDir, 'queue.sqlite'),
              CONSUMER_EXPECT_SQLITE3_REFUSED: app.expectSqlite3Refused ? '1' : '0',
              CONSUMER_SQLITE_TYPE: app.install.some((spec) => spec.startsWith('better-sqlite3')) ? 'better-sqlite3' : 'sqlite',
            };
        try {
          const started = await run('node', [join(appDir, 'dist', 'main.js')], appDir, env);
          note(`${app.name}: boot, job, close, exit ${started.ms} ms`);
          expect({ code: started.code, output: started.code === 0 ? '' : started.output }).toEqual({ code: 0, output: '' });
          const line = started.output.split('\n').find((text) => text.startsWith('CONSUMER-REPORT '));
          const report = JSON.parse(line?.slice('CONSUMER-REPORT '.length) ?? 'null') as Record<string, unknown> | null;
          expect(report).toMatchObject({ result: 'hello consumer', health: 'up' });
          expect(report?.completedJobId).toBe(report?.jobId);
          // Transactional enqueue on this TypeORM: announced at commit, never after a rollback; the job runs.
          expect(report?.transactional).toEqual({ result: 'hello committed', committedAnnounced: true, rolledBackAnnounced: false });
          if (app.expectSqlite3Refused) {
            expect(report?.refused).toContain("Use driver: 'better-sqlite3'");
          }
          // The package's bin, as an operator runs it in the app: `npx nestjs-sqlite-queue`, then on the app's database.
          const help = await runOk('npx', ['--no-install', 'nestjs-sqlite-queue', '--help'], appDir, npmEnv);
          expect(help.output).toContain('Usage: nestjs-sqlite-queue <command> [options]');
          const database = app.postgres ? ['--postgres', POSTGRES_URL, '--schema', schema] : ['--database', join(appDir, 'queue.sqlite')];
          const status = await runOk('npx', ['--no-install', 'nestjs-sqlite-queue', 'status', '--json', ...database], appDir, npmEnv);
          expect(status.output).toContain('"queues"');
        } finally {
          if (app.postgres) await dropSchema(schema);
        }
      },
      APP_TIMEOUT_MS,
    );
  }

  it(
    'an install from git (npm install git+file://...) builds dist through prepare',
    async () => {
      const { appDir, installed } = await prepared(FROM_GIT);
      const installedDir = join(appDir, 'node_modules', 'nestjs-sqlite-queue');
      for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/terminus.js', 'dist/dashboard.js'])
        expect(existsSync(join(installedDir, file))).toBe(true);
      // From git, npm ran the library's prepare (a build from source), and says so: that notice is npm's to give.
      expect(installed.output).toContain(UNREVIEWED_SCRIPTS);
      expect(ownScriptWarnings(installed.output)).toEqual([expect.stringContaining('(prepare: npm run build)')]);
    },
    APP_TIMEOUT_MS,
  );
});

if (OFF) process.stderr.write('\n*** consumer test SKIPPED: QUEUE_TEST_CONSUMER=off. The packed library was not installed into any app.\n');

async function dropSchema(schema: string): Promise<void> {
  const dataSource = new DataSource({ type: 'postgres', url: POSTGRES_URL, poolSize: 1 });
  await dataSource.initialize();
  try {
    await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await dataSource.destroy();
  }
}
