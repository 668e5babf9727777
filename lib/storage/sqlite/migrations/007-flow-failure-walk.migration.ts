import { JOBS_TABLE } from '../../../table-names.constants';
import { childFailedErrorOf } from '../../shared/child-failed';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const W = FLOW_WAIT_OFFSET;

/**
 * The finished child `NEW` and the ancestors its end fails, bottom up: each a waiting parent (pending, run_at pushed
 * by the wait offset) whose policy is 'fail', above a child that failed or was cancelled. `level` 0 is `NEW`; each
 * row names the child it fails by. A recursive CTE is a loop inside one statement, not a nested trigger call: its
 * depth is bounded by the flow's size only.
 */
const FAILED_CHAIN = `WITH RECURSIVE chain(id, parent_id, queue, status, child_id, child_queue, child_status, level) AS (
         SELECT NEW.id, NEW.parent_id, NEW.queue, NEW.status, NULL, NULL, NULL, 0
         UNION ALL
         SELECT up.id, up.parent_id, up.queue, 'failed', chain.id, chain.queue, chain.status, chain.level + 1
         FROM chain JOIN ${T} AS up ON up.id = chain.parent_id
         WHERE chain.status <> 'completed' AND up.status = 'pending' AND up.run_at >= ${W} AND up.on_child_failure = 'fail')`;

/**
 * Flow failures walk up the tree in one trigger call. Step 4's trigger failed a parent, and the parent's own trigger
 * then failed its parent, one nested call per level: SQLite refuses past 1,000 levels (SQLITE_MAX_TRIGGER_DEPTH), so
 * the failure of a leaf deeper than that could not be written, by its worker nor by lease recovery (which then failed
 * as a whole, for every queue). Now the trigger of the child that ended fails every ancestor its end fails at once and
 * releases the first one above them that waits with policy 'continue'; its WHEN leaves out those it failed (a
 * waiting parent turned failed: nothing else fails a waiting parent, which never runs), so nothing nests. The release
 * runs first, while the chain still waits, so it knows the chain's top: the one child of that parent it must not count
 * as live.
 */
export const SQLITE_MIGRATION_FLOW_FAILURE_WALK: SchemaMigration = {
  version: 7,
  name: 'flow-failure-walk',
  statements: [
    `DROP TRIGGER IF EXISTS ${T}_child_finished`,
    `CREATE TRIGGER IF NOT EXISTS ${T}_child_finished AFTER UPDATE OF status ON ${T} FOR EACH ROW
     WHEN NEW.parent_id IS NOT NULL AND OLD.status IN ('pending', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled')
       AND NOT (OLD.status = 'pending' AND OLD.run_at >= ${W} AND NEW.status = 'failed')
     BEGIN
       UPDATE ${T} SET run_at = max(run_at - ${W}, NEW.updated_at), updated_at = NEW.updated_at
       FROM (${FAILED_CHAIN} SELECT id, parent_id FROM chain ORDER BY level DESC LIMIT 1) AS top
       WHERE ${T}.id = top.parent_id AND ${T}.status = 'pending' AND ${T}.run_at >= ${W}
         AND (NEW.status = 'completed' OR ${T}.on_child_failure <> 'fail')
         AND NOT EXISTS (SELECT 1 FROM ${T} AS sibling
           WHERE sibling.parent_id = top.parent_id AND sibling.status IN ('pending', 'running') AND sibling.id <> top.id);
       UPDATE ${T} SET status = 'failed',
         error = ${childFailedErrorOf('json_object', { id: 'chain.child_id', queue: 'chain.child_queue', status: 'chain.child_status' })},
         finished_at = NEW.updated_at, updated_at = NEW.updated_at
       FROM (${FAILED_CHAIN} SELECT id, child_id, child_queue, child_status FROM chain WHERE level > 0) AS chain
       WHERE ${T}.id = chain.id AND ${T}.status = 'pending';
     END`,
  ],
};
