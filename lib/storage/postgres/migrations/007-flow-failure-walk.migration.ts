import { JOBS_TABLE } from '../../../table-names.constants';
import { childFailedErrorOf } from '../../shared/child-failed';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { PostgresMigration } from './postgres-migration';

const W = FLOW_WAIT_OFFSET;

/**
 * Flow failures walk up the tree in a loop of one trigger call (see the SQLite step of the same name). Step 4's
 * function failed a parent and the parent's own trigger failed its parent, one nested call per level, until
 * PostgreSQL's stack ran out (about 1,000 levels at the default max_stack_depth of 2 MB): the failure of a deeper leaf
 * could not be written, by its worker nor by lease recovery, which then failed as a whole for every queue. Now the
 * function of the child that ended climbs while the parent it reaches waits with policy 'fail', failing each, and
 * releases the first one above that waits with policy 'continue'. The trigger's WHEN leaves out a waiting parent
 * turned failed (only this walk fails a waiting parent: it never runs), so nothing nests. Each parent is locked before
 * it is read, as before: walks that meet take turns at the first parent they share, bottom up, so they cannot deadlock.
 */
export const POSTGRES_MIGRATION_FLOW_FAILURE_WALK: PostgresMigration = {
  version: 7,
  name: 'flow-failure-walk',
  statements: (s) => {
    const T = `${s}.${JOBS_TABLE}`;
    // The channel is the schema's name (unquoted) + '_jobs_due', as notifyChannel() builds it.
    const channel = `${s.replace(/"/g, '')}_jobs_due`;
    const fn = `${s}.${JOBS_TABLE}_flow_step`;
    const error = childFailedErrorOf('json_build_object', { id: 'child_id', queue: 'child_queue', status: 'child_status' });
    return [
      `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $flow$
      DECLARE
        child_id bigint;
        child_queue text;
        child_status text;
        up_id bigint;
        at bigint;
        up record;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          child_id := OLD.id;
          child_queue := OLD.queue;
          child_status := 'removed';
          up_id := OLD.parent_id;
          at := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        ELSE
          child_id := NEW.id;
          child_queue := NEW.queue;
          child_status := NEW.status;
          up_id := NEW.parent_id;
          at := NEW.updated_at;
        END IF;
        LOOP
          SELECT id, parent_id, queue, on_child_failure INTO up FROM ${T}
            WHERE id = up_id AND status = 'pending' AND run_at >= ${W} FOR UPDATE;
          IF NOT FOUND THEN
            RETURN NULL;
          END IF;
          IF child_status IN ('failed', 'cancelled') AND up.on_child_failure = 'fail' THEN
            UPDATE ${T} SET status = 'failed', error = ${error}::text, finished_at = at, updated_at = at WHERE id = up.id;
            child_id := up.id;
            child_queue := up.queue;
            child_status := 'failed';
            up_id := up.parent_id;
            IF up_id IS NULL THEN
              RETURN NULL;
            END IF;
          ELSE
            IF NOT EXISTS (SELECT 1 FROM ${T} WHERE parent_id = up.id AND status IN ('pending', 'running')) THEN
              UPDATE ${T} SET run_at = greatest(run_at - ${W}, at), updated_at = at WHERE id = up.id;
              PERFORM pg_notify('${channel}', '');
            END IF;
            RETURN NULL;
          END IF;
        END LOOP;
      END
      $flow$`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_child_finished ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_child_finished AFTER UPDATE OF status ON ${T} FOR EACH ROW
       WHEN (NEW.parent_id IS NOT NULL AND OLD.status IN ('pending', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled')
         AND NOT (OLD.status = 'pending' AND OLD.run_at >= ${W} AND NEW.status = 'failed'))
       EXECUTE PROCEDURE ${fn}()`,
    ];
  },
};
