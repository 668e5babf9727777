import { BadRequestException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { QueueAdmin } from '../admin/queue-admin.service';
import { JobInfo } from '../interfaces/job-info.interface';
import { JobDependencies } from '../interfaces/job-dependencies.interface';
import { QueueProducer } from '../producer/queue-producer.service';
import { toHttpError } from './dashboard-http-error';
import { ResolvedDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { QUEUE_DASHBOARD_OPTIONS } from './queue-dashboard.constants';
import { ActionAnswer } from './dashboard-api.service';

/** Most jobs one bulk action takes: a page of the list is 25; a bigger selection is a typo or a script. */
export const MAX_BULK = 100;
/** Most children a job page lists in its flow tree, and most jobs on each side of its dependencies (the rest are counted). */
const MAX_TREE_CHILDREN = 50;
/** The actions a selection of jobs may take. */
const BULK_ACTIONS = ['retry', 'cancel', 'remove'] as const;
type BulkAction = (typeof BULK_ACTIONS)[number];

/** A job of a flow tree as the job page links it. */
export interface FlowNode {
  id: string;
  queue: string;
  name: string | null;
  status: string;
}

/** A schedule's newest job. */
export type LastRun = FlowNode & { createdAt: Date; finishedAt: Date | null };

/** What the job page shows beside the job itself: its log lines and its place in a flow. */
export interface JobExtras {
  /** Lines of `job.log()`, oldest first; null when kept back (`redact.data` has a rule: a log line often carries data). */
  logs: string[] | null;
  /** Null for a job outside any flow: the page shows no flow block. */
  flow: { parent: FlowNode | null; children: FlowNode[]; moreChildren: number } | null;
  /** The graph around the job (`dependsOn`); null for a job outside any: the page shows no dependencies block. */
  dependencies: JobDependencies | null;
}

/**
 * The operator's actions beyond the basic ones: a selection of jobs at once, "run now", re-run
 * of a finished job, schedule controls, and the processes list, all through the public `QueueAdmin` and
 * `QueueProducer`. Refused in read-only mode like every action.
 */
@Injectable()
export class DashboardOperatorApi {
  constructor(
    private readonly admin: QueueAdmin,
    private readonly producer: QueueProducer,
    @Inject(QUEUE_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  /**
   * A job's log, flow tree (the parent and children with their statuses, each a link on the page) and the graph around
   * it (the jobs it waits for and those that wait for it).
   */
  async jobExtras(job: JobInfo): Promise<JobExtras> {
    const logsHidden = this.options.redact.data !== undefined && this.options.redact.data !== false;
    const logs = logsHidden ? null : ((await this.admin.getJobLogs(job.id)) ?? []);
    const links = await this.admin.getJobDependencies(job.id, { limit: MAX_TREE_CHILDREN });
    const dependencies = links && links.dependencyCount + links.dependentCount > 0 ? links : null;
    const flow = job.flow;
    if (!flow || (flow.parentId === null && flow.childrenIds.length === 0)) return { logs, flow: null, dependencies };
    const shown = flow.childrenIds.slice(0, MAX_TREE_CHILDREN);
    const [parent, ...children] = await Promise.all([
      flow.parentId ? this.admin.getJob(flow.parentId) : null,
      ...shown.map((id) => this.admin.getJob(id)),
    ]);
    return {
      logs,
      flow: {
        parent: parent ? node(parent) : null,
        children: children.filter((child): child is JobInfo => child !== null).map(node),
        moreChildren: flow.childrenIds.length - shown.length,
      },
      dependencies,
    };
  }

  /** The job actions beyond retry, cancel and remove: `promote` (run a delayed job now) and `rerun` (a new job alike). */
  async jobAction(action: string, id: string): Promise<ActionAnswer & { jobId?: string }> {
    this.writable();
    try {
      if (action === 'promote') {
        const moved = await this.admin.promote(id);
        return { message: moved ? `Job ${id} is due now: the next claim of its queue takes it.` : `Job ${id} was already due.` };
      }
      const job = await this.admin.getJob(id);
      if (!job) throw new NotFoundException({ message: `No job has id ${id}: it may have been removed.` });
      // A new job, not the old one moved back: the finished job stays as the record of what happened.
      const copy = await this.producer.add(job.queue, job.data, job.name === null ? {} : { name: job.name });
      return { message: `Job ${copy.id} added to ${job.queue} with the data of job ${id}.`, jobId: copy.id };
    } catch (error) {
      throw toHttpError(error, `Action ${action} on ${id}`);
    }
  }

  /** Retry, cancel or remove each of `ids`; one answer says how many did and why the others did not. */
  async bulk(
    action: string,
    body: Record<string, unknown>,
  ): Promise<ActionAnswer & { done: string[]; refused: { id: string; reason: string }[] }> {
    this.writable();
    if (!BULK_ACTIONS.includes(action as BulkAction)) throw new BadRequestException({ message: `Unknown bulk action "${action}".` });
    const ids = body.ids;
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      ids.length > MAX_BULK ||
      ids.some((id) => typeof id !== 'string' || !/^\d{1,19}$/.test(id))
    ) {
      throw new BadRequestException({ message: `A bulk action takes ids, 1 to ${MAX_BULK} job ids.` });
    }
    const done: string[] = [];
    const refused: { id: string; reason: string }[] = [];
    // One at a time: each is the same call as the job page's button, with its own checks and typed error.
    for (const id of [...new Set(ids as string[])]) {
      try {
        if (action === 'retry') await this.admin.retry(id);
        else if (action === 'cancel') await this.admin.cancel(id);
        else await this.admin.remove(id);
        done.push(id);
      } catch (error) {
        const answer = toHttpError(error, `Bulk ${action} of job ${id}`);
        if (answer.getStatus() >= 500) throw answer;
        refused.push({ id, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    const verb = action === 'retry' ? 'retried' : action === 'cancel' ? 'cancelled' : 'removed';
    const why = refused.length ? `; ${refused.length} not: ${refused.map((r) => r.reason).join('; ')}` : '';
    return { message: `${done.length} job(s) ${verb}${why}.`, done, refused };
  }

  /** Each schedule's last run (the newest job it enqueued), or null, in the order given. */
  async lastRuns(schedules: { queue: string; name: string }[]): Promise<(LastRun | null)[]> {
    const runs = await Promise.all(schedules.map((schedule) => this.admin.getLastScheduleRun(schedule.queue, schedule.name)));
    return runs.map((run) => (run ? { ...node(run), createdAt: run.createdAt, finishedAt: run.finishedAt } : null));
  }

  /** Run now, pause, resume or delete one schedule. */
  async scheduleAction(action: string, queue: string, name: string): Promise<ActionAnswer & { jobId?: string }> {
    this.writable();
    try {
      switch (action) {
        case 'run': {
          const jobId = await this.admin.runScheduleNow(queue, name);
          return { message: `Schedule ${name} of ${queue} ran now: job ${jobId}. Its next run is unchanged.`, jobId };
        }
        case 'pause':
          await this.admin.pauseSchedule(queue, name);
          return { message: `Schedule ${name} of ${queue} paused: it enqueues nothing until resumed.` };
        case 'resume':
          await this.admin.resumeSchedule(queue, name);
          return { message: `Schedule ${name} of ${queue} resumed; runs missed while paused are skipped.` };
        case 'delete':
          if (!(await this.producer.removeSchedule(queue, name))) {
            throw new NotFoundException({ message: `No schedule "${name}" in queue "${queue}".` });
          }
          return { message: `Schedule ${name} of ${queue} deleted; the jobs it already enqueued stay.` };
        default:
          throw new BadRequestException({ message: `Unknown schedule action "${action}".` });
      }
    } catch (error) {
      throw toHttpError(error, `Schedule action ${action} on ${queue}/${name}`);
    }
  }

  /** Which processes run which queues (`QueueAdmin.listProcesses`). */
  async processes() {
    try {
      return { readOnly: this.options.readOnly, ...(await this.admin.listProcesses()) };
    } catch (error) {
      throw toHttpError(error, 'Reading processes');
    }
  }

  private writable(): void {
    if (this.options.readOnly) throw new ForbiddenException({ message: 'The dashboard is read-only: actions are turned off.' });
  }
}

function node(job: JobInfo): FlowNode {
  return { id: job.id, queue: job.queue, name: job.name ?? null, status: job.status };
}
