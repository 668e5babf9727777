import { ExplainFacts } from '../../queue-storage.interface';
import { jobColumnsOf } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { DEPENDENCIES_TABLE as D, GROUP_LIMITS_TABLE as G } from '../../../table-names.constants';
import { Q, T, toRowId } from './sqlite-sql-fragments';

/**
 * The job, its queue's row (pause, limits' state, processor announcement), its live children and the queue's running
 * jobs with a live lease, its live dependencies (`dependsOn`), (all of them, and those of the job's group), in one snapshot. The rate window counts as used up as the claim counts it (see claim.sql.ts).
 * And the job's group's pause or used-up group window. Params: now (rate window), now (leases), now (the group's
 * leases), now (the group's window), id. A job without a group counts 0 in its group, and has no group window.
 */
const EXPLAIN_SQL = `SELECT ${jobColumnsOf('j')},
    coalesce(q.paused, 0) AS x_paused,
    max(coalesce(q.limited_until, 0), CASE WHEN q.rate_max IS NOT NULL AND q.window_count >= q.rate_max
      AND q.window_start + q.rate_duration > ? THEN q.window_start + q.rate_duration ELSE 0 END) AS x_limited_until,
    q.processor_until AS x_processor_until,
    (SELECT count(*) FROM ${T} AS r WHERE r.status = 'running' AND r.lease_until > ? AND r.queue = j.queue) AS x_running_live,
    (SELECT count(*) FROM ${T} AS g WHERE g.queue = j.queue AND g.job_group = j.job_group AND g.status = 'running'
      AND g.lease_until > ?) AS x_group_running_live,
    (SELECT count(*) FROM ${T} AS c WHERE c.parent_id = j.id AND c.status IN ('pending', 'running')) AS x_children_left,
    (SELECT json_group_array(x.id) FROM ${D} AS d JOIN ${T} AS x ON x.id = d.depends_on
      WHERE d.job_id = j.id AND x.status IN ('pending', 'running')) AS x_dependencies_left,
    (SELECT max(gl.limited_until, CASE WHEN gl.window_count >= q.group_rate_max AND gl.window_start + q.group_rate_duration > ?
        THEN gl.window_start + q.group_rate_duration ELSE 0 END)
      FROM ${G} AS gl WHERE gl.queue = j.queue AND gl.job_group = j.job_group) AS x_group_limited_until
  FROM ${T} AS j LEFT JOIN ${Q} AS q ON q.queue = j.queue WHERE j.id = ?`;

/** What `QueueAdmin.explain` reads about job `id` at `now`, or null for no such job. */
export async function explainFacts(runner: StatementRunner, id: string, now: number): Promise<ExplainFacts | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await runner.all(EXPLAIN_SQL, [now, now, now, now, rowId]);
  if (!row) return null;
  return {
    job: toJobRecord(row),
    paused: Number(row.x_paused) === 1,
    limitedUntil: Number(row.x_limited_until ?? 0),
    processorUntil: row.x_processor_until === null || row.x_processor_until === undefined ? null : Number(row.x_processor_until),
    runningLive: Number(row.x_running_live),
    groupRunningLive: Number(row.x_group_running_live),
    childrenLeft: Number(row.x_children_left),
    dependenciesLeft: (JSON.parse(String(row.x_dependencies_left ?? '[]')) as number[]).sort((a, b) => a - b).map(String),
    groupLimitedUntil: Number(row.x_group_limited_until ?? 0),
  };
}
