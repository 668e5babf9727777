import { BadRequestException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { QueueAdmin } from '../admin/queue-admin.service';
import { MAX_SEARCH_LENGTH } from '../admin/search-text';
import { emptyCounts } from '../admin/admin-arguments';
import { JOB_STATUSES, JobInfo, JobStatus } from '../interfaces/job-info.interface';
import { MetricsSnapshot, QueueMetrics } from '../interfaces/metrics.interface';
import { GetJobsOptions, JOB_ORDER_FIELDS, JobOrderBy, QueueInfo } from '../interfaces/queue-info.interface';
import { SEARCH_SCAN_ROWS } from '../storage/shared/job-search';
import { JobSort, sortIsExact } from '../storage/shared/job-sort';
import { QueueProducer } from '../producer/queue-producer.service';
import { assertQueueName } from '../utils/queue-name.util';
import { toHttpError } from './dashboard-http-error';
import { DashboardRedactedField, ResolvedDashboardOptions } from './interfaces/queue-dashboard-options.interface';
import { SharedRead } from './shared-read';
import { QUEUE_DASHBOARD_OPTIONS } from './queue-dashboard.constants';
import { redactValue } from './redact-value';

/** Jobs per page of a queue's list. */
const PAGE_SIZE = 25;
/** Open tabs poll every few seconds: one read of the queues or the metrics serves them all for at least this long. */
const SHARED_READ_MS = 1000;
/** A slow read is kept this many times as long as it took (see SharedRead): at most about 1/20 of the database's time. */
const SLOW_READ_FACTOR = 20;
const FINISHED: JobStatus[] = ['completed', 'failed', 'cancelled'];
/** The fields of a job's page that `redact` rules apply to. */
const JOB_FIELDS: DashboardRedactedField[] = ['data', 'result', 'progress', 'key'];
/** A list never carries data and results. */
const LIST_FIELDS: DashboardRedactedField[] = ['progress', 'key'];

/** A queue as the pages show it: `QueueAdmin.listQueues()` plus its recent metrics (null: nothing finished lately). */
export type DashboardQueue = QueueInfo & { metrics: QueueMetrics | null };

/** What an action did, in words for the operator. */
export interface ActionAnswer {
  message: string;
}

/**
 * Everything the dashboard reads and does, through the public `QueueAdmin` and `QueueProducer`: the HTTP layer
 * only maps routes to these methods. Job data, results, progress and keys pass the
 * `redact` rules here, before any response.
 */
@Injectable()
export class DashboardApi {
  /** Every queue with its counts: counting reads every row, a load with a long history and many open tabs. */
  private readonly queues: SharedRead<QueueInfo[]>;
  private readonly metrics: SharedRead<MetricsSnapshot>;

  constructor(
    private readonly admin: QueueAdmin,
    private readonly producer: QueueProducer,
    @Inject(QUEUE_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {
    this.queues = new SharedRead(() => this.admin.listQueues(), SHARED_READ_MS, SLOW_READ_FACTOR);
    this.metrics = new SharedRead(
      () => this.admin.getMetrics({ windowMinutes: this.options.chartMinutes }),
      SHARED_READ_MS,
      SLOW_READ_FACTOR,
    );
  }

  /** Every queue with counts and metrics, and the settings the page needs. */
  async overview() {
    const [queues, snapshot] = await Promise.all([this.queues.get(), this.metrics.get()]);
    return {
      generatedAt: snapshot.generatedAt,
      readOnly: this.options.readOnly,
      refreshInterval: this.options.refreshInterval,
      chartMinutes: snapshot.windowMinutes,
      sampled: snapshot.sampled,
      queues: queues.map((queue): DashboardQueue => ({ ...queue, metrics: metricsOf(snapshot, queue.name) })),
    };
  }

  /**
   * One queue, and one page of its jobs (of a status, name and group, or matching a search by id, key or text within
   * them), in the order asked (`sort`, `order`: `getJobs`' `orderBy`, across the whole queue), without data or result;
   * 404 for a queue nothing knows (`QueueAdmin.hasQueue`).
   */
  async queue(
    name: string,
    query: { status?: string; offset?: string; search?: string; name?: string; group?: string; sort?: string; order?: string },
  ) {
    const status = parseStatus(query.status);
    const offset = parseOffset(query.offset);
    const sort = parseSort(query.sort, query.order);
    const search = typeof query.search === 'string' ? query.search.trim().slice(0, 512) : '';
    const jobName = typeof query.name === 'string' && query.name !== '' ? query.name : undefined;
    const group = typeof query.group === 'string' && query.group !== '' ? query.group : undefined;
    try {
      assertQueueName(name);
      const [queues, snapshot] = await Promise.all([this.queues.get(), this.metrics.get()]);
      let info = queues.find((queue) => queue.name === name);
      if (!info) {
        // A mistyped URL names no queue: say so (404), rather than a page with actions that would create it. An emptied
        // dead-letter queue is still one (hasQueue knows the processors' deadLetter): its page stays, to show the next.
        if (!(await this.admin.hasQueue(name))) throw new NotFoundException({ message: noSuchQueue(name) });
        info = emptyQueue(name);
      }
      const queue: DashboardQueue = { ...info, metrics: metricsOf(snapshot, name) };
      // Groups with running jobs only (a few index reads): an empty list hides the panel.
      const groups = await this.admin.getGroups(name, { limit: 5 });
      const limits = await this.admin.getQueueLimits(name);
      // Filtered by job name, group or both, the tabs count those jobs (getCounts takes both: a name is a filter on
      // the rows of the group's index walk), with a search too: the tabs say what each status holds, the list what
      // matched.
      const filtered = jobName !== undefined || group !== undefined ? { name: jobName, group } : null;
      const counts = filtered === null ? info.counts : await this.admin.getCounts(name, filtered);
      const exact = sortIsExact({ status, group, search: search || undefined }, sort && sortOf(sort));
      const page = {
        readOnly: this.options.readOnly,
        queue,
        limit: PAGE_SIZE,
        status: status ?? null,
        search,
        name: jobName ?? null,
        nameCounts: filtered === null ? null : counts,
        group: group ?? null,
        sort: sort ? { by: sort.orderBy, order: sort.order, exact } : null,
        groups,
        limits,
        textSearch: this.textSearch(),
        // How deep a text search reads (the newest jobs of the database): the page says so when nothing matched.
        searchScanRows: SEARCH_SCAN_ROWS,
      };
      if (search !== '') {
        // Within a status tab, a search finds that status's jobs only (the failure groups link to failed jobs so),
        // and within a name and group those only.
        const { jobs, more } = await this.search(name, search, { status, name: jobName, group, ...sort });
        // One page, not paged: past it the total is unknown (null), and `more` says that more may match.
        const answer: JobsPage = { total: more ? null : jobs.length, more, offset: 0 };
        return { ...page, jobs: jobs.map((job) => this.summary(job)), ...answer };
      }
      const filters = { status, name: jobName, group, ...sort };
      if (!exact) {
        // A window order never reaches a job beyond the table's newest SORT_SCAN_ROWS, so the status count is not what
        // its pages hold: one row more than the page says whether another follows, and the last page knows the total.
        const read = await this.admin.getJobs(name, { ...filters, offset, limit: PAGE_SIZE + 1 });
        const jobs = read.slice(0, PAGE_SIZE);
        return { ...page, jobs: jobs.map((job) => this.summary(job)), ...windowPage(offset, jobs.length, read.length > PAGE_SIZE) };
      }
      const jobs = await this.admin.getJobs(name, { ...filters, offset, limit: PAGE_SIZE });
      const total = status ? counts[status] : JOB_STATUSES.reduce((sum, each) => sum + counts[each], 0);
      const answer: JobsPage = { total, more: offset + jobs.length < total, offset };
      return { ...page, jobs: jobs.map((job) => this.summary(job)), ...answer };
    } catch (error) {
      throw toHttpError(error, `Reading queue ${name}`);
    }
  }

  /** One job, whole, with data, result, progress and key as the `redact` option allows. */
  async job(id: string) {
    try {
      const job = await this.admin.getJob(id);
      if (!job) return null;
      const { shown, hidden } = this.redact(job, job, JOB_FIELDS);
      return { readOnly: this.options.readOnly, hidden, job: shown };
    } catch (error) {
      throw toHttpError(error, `Reading job ${id}`);
    }
  }

  /** Every recurring job with its next run, data redacted like jobs' data. */
  async schedules() {
    const schedules = await this.producer.listSchedules();
    return {
      readOnly: this.options.readOnly,
      schedules: schedules.map((schedule) => {
        const data = redactValue(this.options.redact.data, schedule.data, schedule, 'data');
        return { ...schedule, data: data.hidden ? null : data.value, dataHidden: data.hidden };
      }),
    };
  }

  /** Runs one action by name; refused in read-only mode. */
  async act(action: string, target: string, body: Record<string, unknown>): Promise<ActionAnswer> {
    if (this.options.readOnly) throw new ForbiddenException({ message: 'The dashboard is read-only: actions are turned off.' });
    try {
      switch (action) {
        case 'pause':
          await this.admin.pause(target);
          return { message: `Queue ${target} paused: no process claims its jobs until it is resumed; running jobs finish.` };
        case 'resume':
          await this.admin.resume(target);
          return { message: `Queue ${target} resumed.` };
        case 'retry-failed':
          return await this.retryFailed(target);
        case 'clean':
          return await this.clean(target, body);
        case 'retry':
          await this.admin.retry(target);
          return { message: `Job ${target} is pending again, with a fresh set of attempts.` };
        case 'cancel':
          await this.admin.cancel(target);
          return { message: `Job ${target} cancelled.` };
        case 'remove':
          await this.admin.remove(target);
          return { message: `Job ${target} removed.` };
        default:
          throw new BadRequestException({ message: `Unknown action "${action}".` });
      }
    } catch (error) {
      throw toHttpError(error, `Action ${action} on ${target}`);
    } finally {
      // The operator's next look shows what the action did, not the counts kept from before it.
      this.queues.invalidate();
    }
  }

  /** Forgets the kept queue counts: an action elsewhere (DashboardOperatorApi) changed them. */
  invalidate(): void {
    this.queues.invalidate();
  }

  /**
   * A job in a list: everything but its data and result (a list never carries payloads), its progress and key as
   * `redact` allows (`hidden` names those it kept back), and its error's message.
   */
  private summary(job: JobInfo) {
    const { data: _data, result: _result, error, ...rest } = job;
    const { shown, hidden } = this.redact(rest, job, LIST_FIELDS);
    // A completed job's errors are its earlier attempts' history, not a "last error".
    const current = error && job.status !== 'completed' ? `${error.name}: ${error.message}` : null;
    return { ...shown, hidden, error: current };
  }

  /**
   * `shown` with each of `fields` passed through its `redact` rule, which is given the whole job: a hidden field
   * becomes null and is named in `hidden`.
   */
  private redact<T extends Partial<JobInfo>>(
    shown: T,
    job: JobInfo,
    fields: DashboardRedactedField[],
  ): { shown: T; hidden: DashboardRedactedField[] } {
    const result = { ...shown };
    const hidden: DashboardRedactedField[] = [];
    for (const field of fields) {
      const outcome = redactValue(this.options.redact[field], job[field], job, field);
      if (outcome.hidden) hidden.push(field);
      (result as Record<string, unknown>)[field] = outcome.hidden ? null : outcome.value;
    }
    return { shown: result, hidden };
  }

  private async retryFailed(queue: string): Promise<ActionAnswer> {
    const { retried, skipped } = await this.admin.retryAll(queue, { report: true });
    const held = skipped.length ? `; ${skipped.length} left failed because a live job holds their unique key` : '';
    return { message: `${retried.length} failed job(s) of ${queue} are pending again${held}.` };
  }

  private async clean(queue: string, body: Record<string, unknown>): Promise<ActionAnswer> {
    const statuses = Array.isArray(body.statuses) ? body.statuses : [];
    if (statuses.length === 0 || statuses.some((status) => !FINISHED.includes(status as JobStatus))) {
      throw new BadRequestException({ message: `Clean takes statuses among ${FINISHED.join(', ')}.` });
    }
    const minutes = body.olderThanMinutes;
    if (!(typeof minutes === 'number' && Number.isInteger(minutes) && minutes >= 0 && minutes <= 525_600)) {
      throw new BadRequestException({ message: 'Clean takes olderThanMinutes, a whole number of minutes from 0 to 525600.' });
    }
    const removed = await this.admin.clean(queue, { status: statuses as JobStatus[], olderThan: minutes * 60_000 });
    return { message: `Removed ${removed} ${statuses.join('/')} job(s) of ${queue} finished more than ${minutes} minute(s) ago.` };
  }

  /** Whether a search looks in jobs' text: not while `redact.data` has a rule (see `search`). */
  private textSearch(): boolean {
    return this.options.redact.data === undefined || this.options.redact.data === false;
  }

  /**
   * A search is a job id (found in any queue, shown when it is this queue's), a unique key of this queue, and text
   * in this queue's jobs' data, name, key or last error (`getJobs({ search })`), each kept to the filters (status,
   * name, group). The text search is left out when `redact.data` has a rule: a match would tell the operator what
   * the hidden data holds. The id and key matches come first, then the text matches in the order asked. One page of
   * them: each read asks for one job more than the page, so `more` says whether a match was left out.
   */
  private async search(queue: string, text: string, filters: SearchFilters): Promise<{ jobs: JobInfo[]; more: boolean }> {
    const byId = /^\d{1,19}$/.test(text) ? await this.admin.getJob(text) : null;
    const byKey = await this.admin.getJobsByKey(queue, text, { limit: PAGE_SIZE + 1 });
    const byText = this.textSearch()
      ? await this.admin.getJobs(queue, { ...filters, search: text.slice(0, MAX_SEARCH_LENGTH), limit: PAGE_SIZE + 1 })
      : [];
    const found = byId && byId.queue === queue ? [byId] : [];
    const kept = (job: JobInfo) =>
      (filters.status === undefined || job.status === filters.status) &&
      (filters.name === undefined || job.name === filters.name) &&
      (filters.group === undefined || job.group === filters.group);
    // A job found twice (its id and its key, say) is listed once, where it was first found.
    const byJobId = new Map<string, JobInfo>();
    for (const job of [...found, ...byKey, ...byText]) {
      if (!byJobId.has(job.id) && kept(job)) byJobId.set(job.id, job);
    }
    const jobs = [...byJobId.values()];
    // A read that filled its extra row may hold more than it returned (the key's jobs are kept to the filters here).
    const more = jobs.length > PAGE_SIZE || byKey.length > PAGE_SIZE || byText.length > PAGE_SIZE;
    return { jobs: jobs.slice(0, PAGE_SIZE), more };
  }
}

/** What a dashboard search keeps to: the page's status tab, name and group filters, and its order. */
type SearchFilters = Pick<GetJobsOptions, 'status' | 'name' | 'group' | 'orderBy' | 'order'>;

/**
 * Where a queue page's jobs stand among all it lists. `total`: how many the list holds, the status count in the default
 * order and in an exact one; in a window order (`sortIsExact` false) the count of the window's matching jobs, known on
 * its last page only, else null (also null on a page past the last: the read tells nothing of how far back that is).
 * `more`: whether a page follows this one. A search is one page of its first matches: `more` says more may match (the
 * page has no next one: a narrower search finds them), and `total` is then null.
 */
interface JobsPage {
  total: number | null;
  more: boolean;
  offset: number;
}

/** `JobsPage` of a window order's page at `offset`, holding `shown` jobs, `more` when the read found one after them. */
function windowPage(offset: number, shown: number, more: boolean): JobsPage {
  const pastTheEnd = shown === 0 && offset > 0;
  return { total: more || pastTheEnd ? null : offset + shown, more, offset };
}

/** The column headers' orders: `getJobs`' fields, named as the page's URL names them. */
type PageSort = { orderBy: JobOrderBy; order: 'asc' | 'desc' };

function noSuchQueue(name: string): string {
  return `No queue "${name}": no job, processor, registered queue, schedule or stored state names it.`;
}

/** A known queue the overview does not list (declared, or with only a schedule or a state row): no job yet. */
function emptyQueue(name: string): QueueInfo {
  return { name, counts: emptyCounts(), paused: false, hasProcessor: false, concurrency: null, processed: false };
}

function parseStatus(status: unknown): JobStatus | undefined {
  if (status === undefined || status === '' || status === 'all') return undefined;
  if (!JOB_STATUSES.includes(status as JobStatus)) throw new BadRequestException({ message: `Unknown status ${JSON.stringify(status)}.` });
  return status as JobStatus;
}

/** The order a page asks (undefined: the default, newest first); refused with the fields known. */
function parseSort(sort: unknown, order: unknown): PageSort | undefined {
  if ((sort === undefined || sort === '') && (order === undefined || order === '')) return undefined;
  const orderBy = sort === undefined || sort === '' ? 'id' : sort;
  if (!JOB_ORDER_FIELDS.includes(orderBy as JobOrderBy))
    throw new BadRequestException({ message: `Unknown sort ${JSON.stringify(orderBy)}: one of ${JOB_ORDER_FIELDS.join(', ')}.` });
  const direction = order === undefined || order === '' ? 'desc' : order;
  if (direction !== 'asc' && direction !== 'desc')
    throw new BadRequestException({ message: `Unknown order ${JSON.stringify(order)}: asc or desc.` });
  return { orderBy: orderBy as JobOrderBy, order: direction };
}

/** A page's order as the storage rule (`sortIsExact`) reads it. */
function sortOf(sort: PageSort): JobSort {
  return { by: sort.orderBy, descending: sort.order === 'desc' };
}

function parseOffset(offset: unknown): number {
  if (offset === undefined || offset === '') return 0;
  const value = Number(offset);
  if (!(Number.isSafeInteger(value) && value >= 0)) throw new BadRequestException({ message: 'offset must be a whole number >= 0.' });
  return value;
}

/** A queue's metrics of the window, or null: only an own member is a queue's (`constructor` is a queue name too). */
function metricsOf(snapshot: MetricsSnapshot, queue: string): QueueMetrics | null {
  return Object.hasOwn(snapshot.queues, queue) ? snapshot.queues[queue] : null;
}
