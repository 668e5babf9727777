/**
 * How long a test's set-up takes: `backend.tempDatabase()` plus a full app boot (`init()`) and its `close()`, per
 * backend, N times each, with a phase breakdown. Not a test (no assertions, not matched by jest): a measurement for
 * whoever changes the suite's shared set-up. Run:
 * `npx ts-node --transpile-only test/bench/setup-cost.bench.ts [rounds] [backend|''] [fresh|migrated|reuse]`.
 */
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { BACKENDS_BY_NAME, BackendName } from '../support/backends';
import { SqliteQueueModule } from '../../lib/sqlite-queue.module';
import setupE2e from '../support/e2e-global-setup';
import teardownE2e from '../support/e2e-global-teardown';

async function main(): Promise<void> {
  const rounds = Number(process.argv[2]) || 10;
  const only = process.argv[3];
  // `fresh` (default): backend.tempDatabase(), migrated by the boot; `migrated`: backend.migratedDatabase() (the
  // template copy); `reuse`: every round boots on one database migrated by the first (the floor of a boot).
  const mode = process.argv[4] || 'fresh';
  const reuse = mode === 'reuse';
  await setupE2e();
  try {
    for (const name of Object.keys(BACKENDS_BY_NAME) as BackendName[]) {
      if (only && only !== name) continue;
      const backend = BACKENDS_BY_NAME[name];
      const phases = { temp: 0, compile: 0, init: 0, close: 0 };
      const shared = reuse ? backend.tempDatabase() : undefined;
      for (let round = 0; round <= rounds; round++) {
        const t0 = performance.now();
        const db = shared ?? (mode === 'migrated' ? await backend.migratedDatabase() : backend.tempDatabase());
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
  } finally {
    await teardownE2e();
  }
}

void main();
