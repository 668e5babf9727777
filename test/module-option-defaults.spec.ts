/**
 * The defaults of the module options are the production ones wherever the code runs: the library reads no
 * test-runner state (it once shortened shutdownTimeout when JEST_WORKER_ID was set); tests pass their own timings.
 */
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { MODULE_DEFAULTS } from '../lib/module-defaults.constants';

describe('module option defaults', () => {
  it('under jest too, shutdownTimeout defaults to 10 s and busyTimeout to 5 s', () => {
    expect(process.env.JEST_WORKER_ID).toBeDefined(); // the premise: this runs where the old default switched
    const resolved = resolveModuleOptions({});
    expect(resolved.shutdownTimeout).toBe(10_000);
    expect(resolved.busyTimeout).toBe(5000);
    expect(MODULE_DEFAULTS).toMatchObject({ shutdownTimeout: 10_000, busyTimeout: 5000 });
  });

  it('the lease floor on SQLite follows the busy timeout given, and PostgreSQL has none', () => {
    expect(() => resolveModuleOptions({ leaseDuration: 6999 })).toThrow('must be at least 7000 ms');
    expect(resolveModuleOptions({ busyTimeout: 500, pollInterval: 100, leaseDuration: 1600 })).toMatchObject({
      busyTimeout: 500,
      leaseDuration: 1600,
    });
    expect(() => resolveModuleOptions({ busyTimeout: 0, pollInterval: 1000, leaseDuration: 1499 })).toThrow('must be at least 1500 ms');
    expect(resolveModuleOptions({ postgres: { url: 'postgres://localhost/db' }, leaseDuration: 100 }).leaseDuration).toBe(100);
  });
});
