import { DEPENDENCIES_TABLE, JOBS_TABLE } from '../../../table-names.constants';
import { dependencyStepSql, dependentAddSql } from '../../shared/dependency-step';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { PostgresMigration } from './postgres-migration';

const W = FLOW_WAIT_OFFSET;

/**
 * Dependencies beyond trees (see the SQLite step of the same name for the tables and the triggers' WHENs). Under READ
 * COMMITTED two ends could each see the other's dependency still live and release nobody, and an add could read a
 * dependency that ends before the add commits: so each side locks before it reads. The add locks its dependencies
 * (in id order) before it flags them and reads their status: an end that comes later waits for the add's commit, and
 * its trigger, whose statements then take fresh snapshots, sees the new edges. The end locks every waiting job it
 * may resolve (in id order) before it reads which dependencies are still live: two ends that share a dependent take
 * turns, and the second sees the first's.
 */
export const POSTGRES_MIGRATION_DEPENDENCIES: PostgresMigration = {
  version: 17,
  name: 'dependencies',
  statements: (s) => {
    const T = `${s}.${JOBS_TABLE}`;
    const D = `${s}.${DEPENDENCIES_TABLE}`;
    // The channel is the schema's name (unquoted) + '_jobs_due', as notifyChannel() builds it.
    const channel = `${s.replace(/"/g, '')}_jobs_due`;
    const step = `${s}.${JOBS_TABLE}_dependency_step`;
    const added = `${s}.${JOBS_TABLE}_dependent_step`;
    const removed = `${s}.${JOBS_TABLE}_dependent_gone`;
    const [release, fail] = dependencyStepSql({
      T,
      D,
      depId: 'dep_id',
      depStatus: 'dep_status',
      at: 'at',
      jsonObject: 'json_build_object',
      greatest: 'greatest',
      asText: '::text',
    });
    const [failAtAdd, waitAtAdd] = dependentAddSql({ T, D, job: 'NEW', jsonObject: 'json_build_object', asText: '::text' });
    return [
      `CREATE TABLE IF NOT EXISTS ${D} (
    job_id     bigint NOT NULL,
    depends_on bigint NOT NULL,
    PRIMARY KEY (job_id, depends_on)
  )`,
      `CREATE INDEX IF NOT EXISTS ${DEPENDENCIES_TABLE}_dependents ON ${D} (depends_on, job_id)`,
      `ALTER TABLE ${T}
         ADD COLUMN IF NOT EXISTS depends_on text,
         ADD COLUMN IF NOT EXISTS on_dependency_failure text,
         ADD COLUMN IF NOT EXISTS dependents smallint`,
      `CREATE OR REPLACE FUNCTION ${added}() RETURNS trigger LANGUAGE plpgsql AS $dep$
      BEGIN
        INSERT INTO ${D} (job_id, depends_on)
          SELECT NEW.id, value::bigint FROM jsonb_array_elements_text(NEW.depends_on::jsonb) ON CONFLICT DO NOTHING;
        PERFORM 1 FROM ${T} WHERE id IN (SELECT depends_on FROM ${D} WHERE job_id = NEW.id) ORDER BY id FOR UPDATE;
        UPDATE ${T} SET dependents = 1 WHERE id IN (SELECT depends_on FROM ${D} WHERE job_id = NEW.id) AND dependents IS NULL;
        ${failAtAdd};
        ${waitAtAdd};
        RETURN NULL;
      END
      $dep$`,
      `CREATE OR REPLACE FUNCTION ${step}() RETURNS trigger LANGUAGE plpgsql AS $dep$
      DECLARE
        dep_id bigint;
        dep_status text;
        at bigint;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          dep_id := OLD.id;
          dep_status := 'removed';
          at := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        ELSE
          dep_id := NEW.id;
          dep_status := NEW.status;
          at := NEW.updated_at;
        END IF;
        PERFORM 1 FROM ${T} WHERE id IN (
          WITH RECURSIVE reach(id) AS (
            SELECT job_id FROM ${D} WHERE depends_on = dep_id
            UNION
            SELECT d.job_id FROM reach JOIN ${T} AS j ON j.id = reach.id JOIN ${D} AS d ON d.depends_on = reach.id
            WHERE dep_status <> 'completed' AND j.status = 'pending' AND j.run_at >= ${W} AND j.on_dependency_failure = 'fail')
          SELECT id FROM reach) AND status = 'pending' AND run_at >= ${W}
          ORDER BY id FOR UPDATE;
        ${release};
        IF FOUND THEN
          PERFORM pg_notify('${channel}', '');
        END IF;
        ${fail};
        RETURN NULL;
      END
      $dep$`,
      `CREATE OR REPLACE FUNCTION ${removed}() RETURNS trigger LANGUAGE plpgsql AS $dep$
      BEGIN
        DELETE FROM ${D} WHERE job_id = OLD.id;
        RETURN NULL;
      END
      $dep$`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_dependent_added ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_dependent_added AFTER INSERT ON ${T} FOR EACH ROW
       WHEN (NEW.depends_on IS NOT NULL) EXECUTE PROCEDURE ${added}()`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_dependency_finished ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_dependency_finished AFTER UPDATE OF finished_at ON ${T} FOR EACH ROW
       WHEN (NEW.dependents IS NOT NULL AND OLD.status IN ('pending', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled')
         AND NOT (NEW.on_dependency_failure IS NOT NULL AND OLD.status = 'pending' AND OLD.run_at >= ${W} AND NEW.status = 'failed'))
       EXECUTE PROCEDURE ${step}()`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_dependency_removed ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_dependency_removed AFTER DELETE ON ${T} FOR EACH ROW
       WHEN (OLD.dependents IS NOT NULL AND OLD.status IN ('pending', 'running')) EXECUTE PROCEDURE ${step}()`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_dependent_removed ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_dependent_removed AFTER DELETE ON ${T} FOR EACH ROW
       WHEN (OLD.depends_on IS NOT NULL) EXECUTE PROCEDURE ${removed}()`,
    ];
  },
};
