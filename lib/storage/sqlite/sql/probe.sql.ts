import { QUEUES_TABLE } from '../../../table-names.constants';
import { StatementRunner } from '../../shared/statement-runner';

/**
 * A write that changes nothing: SQLite still starts a write transaction for it, so a file this process may only
 * read fails here, at boot, with SQLITE_READONLY, instead of on every claim and `add()` later. One self-contained
 * statement, safe on a connection shared with the application.
 */
export async function probeWrite(runner: StatementRunner): Promise<void> {
  await runner.run(`DELETE FROM ${QUEUES_TABLE} WHERE 0`, []);
}
