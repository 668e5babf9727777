import { existsSync, readFileSync } from 'node:fs';
import type { OpsAppConfig } from '../fixtures/ops-app';
import { ChildApp, startScript } from './child-app';
import type { TestDatabase } from './backends';
import { rawQuery } from './raw-sqlite';

/** Starts test/fixtures/ops-app.ts (a Nest app for the operations tests) in a new OS process. */
export function startOpsApp(config: OpsAppConfig): ChildApp {
  return startScript('test/fixtures/ops-app.ts', [JSON.stringify(config)]);
}

/** The parsed lines of a JSON-lines file, or [] when it does not exist yet. */
export function readJsonLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

/**
 * Runs one statement on a test's SQLite database through a connection of its own (not the module's): for
 * reading what the public API does not show (schedule_key) and for simulating downtime.
 */
export function queryDatabase<T = Record<string, unknown>>(db: TestDatabase, sql: string, params: unknown[] = []): Promise<T[]> {
  return rawQuery<T>(db, sql, params);
}

/** The error a promise rejects with; fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, but it resolved');
}

/** The error a function throws synchronously or its promise rejects with; fails when it succeeds. */
export async function errorOf(work: () => unknown): Promise<Error> {
  try {
    await work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, but it succeeded');
}
