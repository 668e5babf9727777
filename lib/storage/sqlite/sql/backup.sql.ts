import { StatementRunner } from '../../shared/statement-runner';

/**
 * Writes a consistent copy of the live database to a new file: VACUUM INTO reads one snapshot (in WAL mode other
 * processes keep writing meanwhile) and writes a compact, self-contained database (no -wal file to carry along).
 */
export async function vacuumInto(runner: StatementRunner, destination: string): Promise<void> {
  await runner.run('VACUUM INTO ?', [destination]);
}
