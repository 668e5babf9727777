import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { UnsupportedTransactionError } from '../lib/errors/unsupported-transaction.error';
import { PostgresTransactions } from '../lib/storage/postgres/postgres-transaction';
import { PostgresTables } from '../lib/storage/postgres/sql/postgres-sql-fragments';
import { StatementRunner } from '../lib/storage/shared/statement-runner';

const TABLES = { T: 'public.nest_queue_jobs' } as PostgresTables;
const SAME = { db: 'app', jobs: '16384' };

/** A caller's open transaction on another `postgres` DataSource, whose connection sees `identity`. */
function callerManager(identity: Record<string, unknown>): { manager: EntityManager; runner: QueryRunner } {
  const runner = {
    isTransactionActive: true,
    isReleased: false,
    query: () => Promise.resolve({ records: [identity] }),
  } as unknown as QueryRunner;
  const source = { options: { type: 'postgres' } } as unknown as DataSource;
  return { manager: { queryRunner: runner, connection: source } as unknown as EntityManager, runner };
}

/** The queue's own connection: its first identity question fails (a dropped connection), the rest answer. */
function flakyQueueRunner() {
  let asked = 0;
  const runner: StatementRunner = {
    all: () => (++asked === 1 ? Promise.reject(new Error('Connection terminated unexpectedly')) : Promise.resolve([SAME])),
    run: () => Promise.reject(new Error('not used')),
  };
  return { runner, asked: () => asked };
}

describe('PostgresTransactions', () => {
  const queueSource = {} as DataSource;

  it('asks the queue connection again after its identity question failed once, and keeps the answer once it has one', async () => {
    const queue = flakyQueueRunner();
    const transactions = new PostgresTransactions(() => queueSource, queue.runner, TABLES);
    const first = callerManager(SAME);
    await expect(transactions.runnerFor(first.manager)).rejects.toThrow('Connection terminated unexpectedly');
    await expect(transactions.runnerFor(first.manager)).resolves.toBe(first.runner);
    expect(queue.asked()).toBe(2);
    // Another DataSource is checked against the identity already known: the queue connection is not asked again.
    const second = callerManager(SAME);
    await expect(transactions.runnerFor(second.manager)).resolves.toBe(second.runner);
    expect(queue.asked()).toBe(2);
  });

  it('still refuses a DataSource on another database once the identity is known', async () => {
    const queue = flakyQueueRunner();
    const transactions = new PostgresTransactions(() => queueSource, queue.runner, TABLES);
    await expect(transactions.runnerFor(callerManager(SAME).manager)).rejects.toThrow('Connection terminated unexpectedly');
    await expect(transactions.runnerFor(callerManager({ db: 'other', jobs: '16384' }).manager)).rejects.toThrow(
      UnsupportedTransactionError,
    );
  });
});
