import { JOBS_TABLE } from '../../../table-names.constants';
import { childFailedErrorSql } from '../../shared/child-failed';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { PostgresMigration } from './postgres-migration';

const W = FLOW_WAIT_OFFSET;

/**
 * Flows (see the SQLite step of the same name): `parent_id`, the parent's `on_child_failure` policy, an index of
 * children by status, and one trigger function that releases or fails a waiting parent in the statement that
 * finishes (or deletes) its child. It locks the parent row first: two siblings finishing in concurrent
 * transactions then take turns, and the second one's "any live sibling left?" (a new snapshot per statement)
 * sees the first one committed, so the last child always releases the parent. The release notifies the
 * schema's channel, delivered at commit.
 */
export const POSTGRES_MIGRATION_FLOWS: PostgresMigration = {
  version: 4,
  name: 'flows',
  statements: (s) => {
    const T = `${s}.${JOBS_TABLE}`;
    // The channel is the schema's name (unquoted) + '_jobs_due', as notifyChannel() builds it.
    const channel = `${s.replace(/"/g, '')}_jobs_due`;
    const fn = `${s}.${JOBS_TABLE}_flow_step`;
    return [
      `ALTER TABLE ${T} ADD COLUMN IF NOT EXISTS parent_id bigint`,
      `ALTER TABLE ${T} ADD COLUMN IF NOT EXISTS on_child_failure text`,
      `CREATE INDEX IF NOT EXISTS ${JOBS_TABLE}_children ON ${T} (parent_id, status) WHERE parent_id IS NOT NULL`,
      `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $flow$
      DECLARE
        child record;
        at bigint;
        policy text;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          child := OLD;
          at := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        ELSE
          child := NEW;
          at := NEW.updated_at;
        END IF;
        SELECT on_child_failure INTO policy FROM ${T}
          WHERE id = child.parent_id AND status = 'pending' AND run_at >= ${W} FOR UPDATE;
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        IF TG_OP = 'UPDATE' AND child.status <> 'completed' AND policy = 'fail' THEN
          UPDATE ${T} SET status = 'failed', error = ${childFailedErrorSql('json_build_object', 'child')}::text,
            finished_at = at, updated_at = at
          WHERE id = child.parent_id;
        ELSIF NOT EXISTS (SELECT 1 FROM ${T} WHERE parent_id = child.parent_id AND status IN ('pending', 'running')) THEN
          UPDATE ${T} SET run_at = greatest(run_at - ${W}, at), updated_at = at WHERE id = child.parent_id;
          PERFORM pg_notify('${channel}', '');
        END IF;
        RETURN NULL;
      END
      $flow$`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_child_finished ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_child_finished AFTER UPDATE OF status ON ${T} FOR EACH ROW
       WHEN (NEW.parent_id IS NOT NULL AND OLD.status IN ('pending', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled'))
       EXECUTE PROCEDURE ${fn}()`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_child_removed ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_child_removed AFTER DELETE ON ${T} FOR EACH ROW
       WHEN (OLD.parent_id IS NOT NULL AND OLD.status IN ('pending', 'running'))
       EXECUTE PROCEDURE ${fn}()`,
    ];
  },
};
