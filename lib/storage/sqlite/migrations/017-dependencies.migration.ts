import { DEPENDENCIES_TABLE, JOBS_TABLE } from '../../../table-names.constants';
import { dependencyStepSql, dependentAddSql } from '../../shared/dependency-step';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const D = DEPENDENCIES_TABLE;
const W = FLOW_WAIT_OFFSET;
/** SQLite's clock in epoch ms (a deleted row carries no time of its own). */
const NOW = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;

const [releaseOnEnd, failOnEnd] = dependencyStepSql({
  T,
  D,
  depId: 'NEW.id',
  depStatus: 'NEW.status',
  at: 'NEW.updated_at',
  jsonObject: 'json_object',
  greatest: 'max',
  asText: '',
});
const [releaseOnDelete, failOnDelete] = dependencyStepSql({
  T,
  D,
  depId: 'OLD.id',
  depStatus: `'removed'`,
  at: NOW,
  jsonObject: 'json_object',
  greatest: 'max',
  asText: '',
});
const [failAtAdd, waitAtAdd] = dependentAddSql({ T, D, job: 'NEW', jsonObject: 'json_object', asText: '' });

/**
 * Dependencies beyond trees (`dependsOn`): a job waits for jobs of any queue that existed before it. Its edges are rows
 * of their own table (found from the dependent by the key, from the dependency by the second index); the dependent
 * carries its policy and the list it was added with, the dependency a flag set when its first dependent is added. A
 * waiting dependent is a pending row pushed by the wait offset, as a flow parent, so the claim needs no change.
 *
 * The insert of a dependent writes its edges, flags its dependencies and resolves what already ended, in the same
 * statement (its trigger). The end of a flagged job (or the deletion of a live one) releases or fails its dependents in
 * the statement that ends it: a kill -9 cannot fall between the two. Plain jobs carry no flag and no list: each
 * trigger's WHEN is false for them at the cost of a column test, and the claim, which sets neither `finished_at` nor
 * deletes, never runs them. A waiting dependent turned failed is left out of the end trigger's WHEN: only the walk of
 * the end that fails it fails a waiting dependent, and it handles that one's dependents itself, so nothing nests.
 */
export const SQLITE_MIGRATION_DEPENDENCIES: SchemaMigration = {
  version: 17,
  name: 'dependencies',
  statements: [
    `CREATE TABLE IF NOT EXISTS ${D} (
    job_id     INTEGER NOT NULL,
    depends_on INTEGER NOT NULL,
    PRIMARY KEY (job_id, depends_on)
  ) WITHOUT ROWID`,
    `CREATE INDEX IF NOT EXISTS ${D}_dependents ON ${D} (depends_on, job_id)`,
    // The dependencies the job was added with (a JSON array of ids), on a dependent only.
    `ALTER TABLE ${T} ADD COLUMN depends_on TEXT`,
    // 'fail' or 'continue' on a dependent (NULL on every other job): what a dependency that did not complete does to it.
    `ALTER TABLE ${T} ADD COLUMN on_dependency_failure TEXT`,
    // 1 once a dependent names this job: the end triggers' cheap test.
    `ALTER TABLE ${T} ADD COLUMN dependents INTEGER`,
    `CREATE TRIGGER IF NOT EXISTS ${T}_dependent_added AFTER INSERT ON ${T} FOR EACH ROW
     WHEN NEW.depends_on IS NOT NULL
     BEGIN
       INSERT OR IGNORE INTO ${D} (job_id, depends_on) SELECT NEW.id, CAST(value AS INTEGER) FROM json_each(NEW.depends_on);
       UPDATE ${T} SET dependents = 1 WHERE id IN (SELECT depends_on FROM ${D} WHERE job_id = NEW.id) AND dependents IS NULL;
       ${failAtAdd};
       ${waitAtAdd};
     END`,
    `CREATE TRIGGER IF NOT EXISTS ${T}_dependency_finished AFTER UPDATE OF finished_at ON ${T} FOR EACH ROW
     WHEN NEW.dependents IS NOT NULL AND OLD.status IN ('pending', 'running') AND NEW.status IN ('completed', 'failed', 'cancelled')
       AND NOT (NEW.on_dependency_failure IS NOT NULL AND OLD.status = 'pending' AND OLD.run_at >= ${W} AND NEW.status = 'failed')
     BEGIN
       ${releaseOnEnd};
       ${failOnEnd};
     END`,
    // A live dependency deleted (remove, clean) ended without completing: its dependents must not wait for it for ever.
    `CREATE TRIGGER IF NOT EXISTS ${T}_dependency_removed AFTER DELETE ON ${T} FOR EACH ROW
     WHEN OLD.dependents IS NOT NULL AND OLD.status IN ('pending', 'running')
     BEGIN
       ${releaseOnDelete};
       ${failOnDelete};
     END`,
    // A dependent deleted takes its edges with it.
    `CREATE TRIGGER IF NOT EXISTS ${T}_dependent_removed AFTER DELETE ON ${T} FOR EACH ROW
     WHEN OLD.depends_on IS NOT NULL
     BEGIN
       DELETE FROM ${D} WHERE job_id = OLD.id;
     END`,
  ],
};
