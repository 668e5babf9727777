'use strict';
// The soak's settings: environment variables, or the same names as flags (`--jobs=500`, `--backend=sqlite`).

const FLAGS = {
  backend: 'SOAK_BACKEND',
  jobs: 'SOAK_JOBS',
  'produce-seconds': 'SOAK_PRODUCE_SECONDS',
  'max-seconds': 'SOAK_MAX_SECONDS',
  'drain-seconds': 'SOAK_DRAIN_SECONDS',
  consumers: 'SOAK_CONSUMERS',
  producers: 'SOAK_PRODUCERS',
  concurrency: 'SOAK_CONCURRENCY',
  'kill-ms': 'SOAK_KILL_MS',
  'terminate-ms': 'SOAK_TERMINATE_MS',
  'pg-restart': 'SOAK_PG_RESTART',
  'write-lock-ms': 'SOAK_WRITE_LOCK_MS',
  seed: 'SOAK_SEED',
  driver: 'SOAK_DRIVER',
  'pg-url': 'SOAK_PG_URL',
  keep: 'SOAK_KEEP',
  smoke: 'SOAK_SMOKE',
  'delete-on-complete': 'SOAK_DELETE',
};

/** The help text, printed by `--help`. */
const HELP = `npm run soak [-- --flag=value ...]   (or the SOAK_* environment variables)

  --backend=both|sqlite|postgres  SOAK_BACKEND        default: both when PostgreSQL answers, else sqlite
  --jobs=N                        SOAK_JOBS           jobs added over the run (default 20000; smoke 500)
  --produce-seconds=S             SOAK_PRODUCE_SECONDS producers spread the jobs over S s (default 50; smoke 8)
  --max-seconds=S                 SOAK_MAX_SECONDS    cap of the chaos phase per backend (default 120; smoke 30)
  --drain-seconds=S               SOAK_DRAIN_SECONDS  most time to drain after the chaos (default 60)
  --consumers=N --producers=N     SOAK_CONSUMERS / SOAK_PRODUCERS  processes (default 3 and 2)
  --concurrency=N                 SOAK_CONCURRENCY    per queue per consumer, 4 queues (default 8)
  --kill-ms=MS                    SOAK_KILL_MS        mean time between kill -9s (default 1400; 0: no kills)
  --terminate-ms=MS               SOAK_TERMINATE_MS   PostgreSQL: mean time between backend terminations (default 3000; 0: none)
  --pg-restart=1|0                SOAK_PG_RESTART     PostgreSQL: restart the server once mid-run (default 1; smoke 0)
  --write-lock-ms=MS              SOAK_WRITE_LOCK_MS  SQLite: mean time between 0.5-3 s write locks held by another connection (default 4000; 0: none)
  --seed=N                        SOAK_SEED           seed of every random choice (default: from the clock, printed)
  --driver=sqlite3|better-sqlite3 SOAK_DRIVER         SQLite driver of the children (default sqlite3)
  --pg-url=URL                    SOAK_PG_URL         admin connection (default postgres://postgres@127.0.0.1:5432/test)
  --keep=1                        SOAK_KEEP           keep the ledgers, database file and schema afterwards
  --smoke=1                       SOAK_SMOKE          a ~30 s check of the harness: 500 jobs, no server restart
  --delete-on-complete=1          SOAK_DELETE         retention on: soak-a keeps no completed job (removeOnComplete: true:
                                                      deleted by its completion), half of soak-b's jobs are added with
                                                      removeOnComplete: true, soak-c keeps { count: 200, age: 3000 };
                                                      flows go to soak-d, which keeps everything (default 0)`;

function readOptions(argv = process.argv.slice(2), env = process.env) {
  const values = {};
  for (const [, name] of Object.entries(FLAGS)) if (env[name] !== undefined) values[name] = env[name];
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') return { help: HELP };
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match || !FLAGS[match[1]]) throw new Error(`unknown argument ${arg}\n\n${HELP}`);
    values[FLAGS[match[1]]] = match[2] ?? '1';
  }
  const smoke = values.SOAK_SMOKE === '1';
  const number = (name, fallback) => {
    if (values[name] === undefined) return fallback;
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got ${values[name]}`);
    return value;
  };
  const backend = values.SOAK_BACKEND;
  if (backend !== undefined && !['both', 'sqlite', 'postgres'].includes(backend)) {
    throw new Error(`SOAK_BACKEND must be both, sqlite or postgres`);
  }
  const driver = values.SOAK_DRIVER || 'sqlite3';
  if (!['sqlite3', 'better-sqlite3'].includes(driver)) throw new Error(`SOAK_DRIVER must be sqlite3 or better-sqlite3`);
  return {
    backend,
    smoke,
    jobs: Math.max(1, Math.floor(number('SOAK_JOBS', smoke ? 500 : 20_000))),
    produceMs: number('SOAK_PRODUCE_SECONDS', smoke ? 8 : 50) * 1000,
    maxMs: number('SOAK_MAX_SECONDS', smoke ? 30 : 120) * 1000,
    drainMs: number('SOAK_DRAIN_SECONDS', 60) * 1000,
    consumers: Math.max(1, Math.floor(number('SOAK_CONSUMERS', 3))),
    producers: Math.max(1, Math.floor(number('SOAK_PRODUCERS', 2))),
    concurrency: Math.max(1, Math.floor(number('SOAK_CONCURRENCY', 8))),
    killMs: number('SOAK_KILL_MS', 1400),
    terminateMs: number('SOAK_TERMINATE_MS', 3000),
    writeLockMs: number('SOAK_WRITE_LOCK_MS', 4000),
    pgRestart: values.SOAK_PG_RESTART !== undefined ? values.SOAK_PG_RESTART !== '0' : !smoke,
    seed: Math.floor(number('SOAK_SEED', Date.now() % 2 ** 31)),
    driver,
    pgUrl: values.SOAK_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
    keep: values.SOAK_KEEP === '1',
    deleteOnComplete: values.SOAK_DELETE === '1',
  };
}

module.exports = { readOptions };
