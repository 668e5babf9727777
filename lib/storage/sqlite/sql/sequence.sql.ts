import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/** The sequence row may be missing: a rollback of the table's first insert rolls back its creation too. */
const ADD_SEQUENCE_SQL = `INSERT INTO sqlite_sequence (name, seq) SELECT '${T}', ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = '${T}')`;

const RAISE_SEQUENCE_SQL = `UPDATE sqlite_sequence SET seq = ? WHERE name = '${T}' AND seq < ?`;

/**
 * After a rollback of the application's transaction: AUTOINCREMENT never gives an id twice only while
 * `sqlite_sequence` remembers it, and the rollback took back the ids handed out inside it. Raising the sequence to
 * the highest of them (never lowering it) keeps the schema's promise that a stale id cannot name a newer job. Two
 * self-contained statements, each harmless alone.
 */
export async function keepRolledBackIds(runner: StatementRunner, highestId: number): Promise<void> {
  await runner.run(ADD_SEQUENCE_SQL, [highestId]);
  await runner.run(RAISE_SEQUENCE_SQL, [highestId, highestId]);
}
