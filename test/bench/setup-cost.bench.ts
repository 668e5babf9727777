/**
 * How long a test's set-up takes: `backend.tempDatabase()` plus a full app boot (`init()`) and its `close()`, per
 * backend, N times each, with a phase breakdown. Not a test (no assertions, not matched by jest): a measurement for
 * whoever changes the suite's shared set-up. Run:
 * `npx ts-node --transpile-only test/bench/setup-cost.bench.ts [rounds] [backend|''] [fresh|migrated|steps|reuse, or several: steps,migrated]`.
 */
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { BACKENDS_BY_NAME, Backend, BackendName, TestDatabase } from '../support/backends';
import { migratePostgresSchema } from '../support/template-database';
import { SqliteQueueModule } from '../../lib/sqlite-queue.module';
import setupE2e from '../support/e2e-global-setup';
import teardownE2e from '../support/e2e-global-teardown';

/** A database of the round: fresh, migrated (the template copy), or on PostgreSQL migrated by running every step. */
async function database(backend: Backend, mode: string): Promise<TestDatabase> {
  if (mode === 'migrated' || (mode === 'steps' && backend.kind === 'sqlite')) return backend.migratedDatabase();
  const db = backend.tempDatabase();
  if (mode === 'steps') await migratePostgresSchema(db.options.postgres!.url!, db.options.postgres!.schema!);
  return db;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2]) || 10;
  const only = process.argv[3];
  // `fresh` (default): backend.tempDatabase(), migrated by the boot; `migrated`: backend.migratedDatabase() (the
  // template copy); `steps`: on PostgreSQL, every step of the library run into each schema (what `migrated` did
  // before the template; SQLite's `migrated` is its copy); `reuse`: every round boots on one database migrated by the
  // first (the floor of a boot). Several, comma-separated, run one after the other in this process.
  const modes = (process.argv[4] || 'fresh').split(',');
  try {
    // Inside the try: a set-up that fails half-way (the PostgreSQL template's check) still drops what it made.
    await setupE2e();
    for (const name of Object.keys(BACKENDS_BY_NAME) as BackendName[]) {
      if (only && only !== name) continue;
      const backend = BACKENDS_BY_NAME[name];
      for (const mode of modes) {
        const reuse = mode === 'reuse';
        const phases = { temp: 0, compile: 0, init: 0, close: 0 };
        const shared = reuse ? backend.tempDatabase() : undefined;
        for (let round = 0; round <= rounds; round++) {
          const t0 = performance.now();
          const db = shared ?? (await database(backend, mode));
          const t1 = performance.now();
          const app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...db.options })] }).compile();
          app.useLogger(false);
          const t2 = performance.now();
          await app.init();
          const t3 = performance.now();
          await app.close();
          const t4 = performance.now();
          if (!shared) db.cleanup();
          if (round === 0) continue; // warm-up: module loading, first connection
          phases.temp += t1 - t0;
          phases.compile += t2 - t1;
          phases.init += t3 - t2;
          phases.close += t4 - t3;
        }
        const per = (ms: number): string => (ms / rounds).toFixed(1).padStart(7);
        const total = phases.temp + phases.compile + phases.init + phases.close;
        console.log(
          `${name.padEnd(15)} ${mode.padEnd(8)} tempDatabase ${per(phases.temp)} ms  compile ${per(phases.compile)} ms  init ${per(phases.init)} ms  close ${per(phases.close)} ms  total ${per(total)} ms`,
        );
      }
    }
  } finally {
    await teardownE2e();
  }
}

void main();
