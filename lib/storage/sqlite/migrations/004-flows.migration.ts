import { JOBS_TABLE } from '../../../table-names.constants';
import { childFailedErrorSql } from '../../shared/child-failed';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const W = FLOW_WAIT_OFFSET;
/** SQLite's clock in epoch ms (a deleted row carries no time of its own). */
const NOW = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;
/** No live sibling of the child `c` is left: the parent may run. Served by the children index. */
const NO_LIVE_SIBLING = (c: string) =>
  `NOT EXISTS (SELECT 1 FROM ${T} AS sibling WHERE sibling.parent_id = ${c}.parent_id AND sibling.status IN ('pending', 'running'))`;

/**
 * Flows: a job may have a parent (`parent_id`), and a parent waits for its children. A waiting parent is a pending
 * row whose run_at is pushed FLOW_WAIT_OFFSET ms into the future, so the claim and its index need no change. The
 * triggers release it (or fail it, by its `on_child_failure` policy) in the same statement that finishes its last
 * child: a kill -9 cannot fall between the two. Plain jobs have no parent: the triggers' WHEN is false for them and
 * the partial index never holds them, so the hot path pays one test per finished row.
 */
export const SQLITE_MIGRATION_FLOWS: SchemaMigration = {
  version: 4,
  name: 'flows',
  statements: [
    `ALTER TABLE ${T} ADD COLUMN parent_id INTEGER`,
    // 'fail' or 'continue' on a parent (NULL on every other job): what a failed or cancelled child does to it.
    `ALTER TABLE ${T} ADD COLUMN on_child_failure TEXT`,
    // Children of a parent by status: the "any live sibling left?" test, listings and results, cascades.
    `CREATE INDEX IF NOT EXISTS ${T}_children ON ${T} (parent_id, status) WHERE parent_id IS NOT NULL`,
    `CREATE TRIGGER IF NOT EXISTS ${T}_child_finished AFTER UPDATE OF status ON ${T} FOR EACH ROW
     WHEN NEW.parent_id IS NOT NULL AND OLD.status IN ('pending', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled')
     BEGIN
       UPDATE ${T} SET
         status = CASE WHEN NEW.status <> 'completed' AND on_child_failure = 'fail' THEN 'failed' ELSE status END,
         error = CASE WHEN NEW.status <> 'completed' AND on_child_failure = 'fail' THEN ${childFailedErrorSql('json_object', 'NEW')} ELSE error END,
         finished_at = CASE WHEN NEW.status <> 'completed' AND on_child_failure = 'fail' THEN NEW.updated_at ELSE finished_at END,
         run_at = CASE WHEN (NEW.status = 'completed' OR on_child_failure <> 'fail') AND ${NO_LIVE_SIBLING('NEW')}
           THEN max(run_at - ${W}, NEW.updated_at) ELSE run_at END,
         updated_at = NEW.updated_at
       WHERE id = NEW.parent_id AND status = 'pending' AND run_at >= ${W};
     END`,
    // A live child deleted (remove, clean) is a dependency gone: its parent must not wait for it for ever.
    `CREATE TRIGGER IF NOT EXISTS ${T}_child_removed AFTER DELETE ON ${T} FOR EACH ROW
     WHEN OLD.parent_id IS NOT NULL AND OLD.status IN ('pending', 'running')
     BEGIN
       UPDATE ${T} SET run_at = max(run_at - ${W}, ${NOW}), updated_at = ${NOW}
       WHERE id = OLD.parent_id AND status = 'pending' AND run_at >= ${W} AND ${NO_LIVE_SIBLING('OLD')};
     END`,
  ],
};
