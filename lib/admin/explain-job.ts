import { BatchOptions } from '../interfaces/batch-options.interface';
import { JobExplanation } from '../interfaces/job-explanation.interface';
import { ExplainFacts } from '../storage/queue-storage.interface';
import { intendedRunAt, isWaitingRunAt } from '../storage/shared/flow-wait';
import { parseStoredError } from './parse-stored-error';

/**
 * What the process asking knows of the queue's limits beyond the database: a global concurrency is a processor's
 * option (or the module's `queueLimits`), never stored, so only a process that declares it can tell it holds a job.
 * So is a group concurrency (`groupConcurrency`).
 */
export interface ExplainLimits {
  /** This process has a `@Processor` for the queue and is processing. */
  readonly processesHere: boolean;
  /** The queue's global concurrency, as this process declares it. */
  readonly globalConcurrency?: number;
  /** The queue's per-group concurrency, as this process declares it. */
  readonly groupConcurrency?: number;
  /** The batch of the queue's processor in this process (a batch handler), when it has one. */
  readonly batch?: BatchOptions;
}

type Explained = Omit<JobExplanation, 'status'>;

/** One reason's test: the explanation when it holds the pending, due-or-not job back, else null. */
type ReasonCheck = (facts: ExplainFacts, limits: ExplainLimits, now: number) => Explained | null;

const at = (ms: number) => new Date(ms).toISOString();

/**
 * The tests of a pending job, in the order `JobExplanationReason` documents: the first that holds it back explains
 * it. One function per reason, each reading only the facts and limits it needs: a new limit is a new entry here.
 */
const PENDING_CHECKS: readonly ReasonCheck[] = [
  function waitingForDependencies({ job, dependenciesLeft }) {
    if (!isWaitingRunAt(job.runAt) || dependenciesLeft.length === 0) return null;
    const shown = dependenciesLeft.slice(0, 10).join(', ') + (dependenciesLeft.length > 10 ? ', ...' : '');
    return {
      reason: 'waiting-for-dependencies',
      dependenciesLeft,
      detail: `waiting for ${dependenciesLeft.length} dependency job(s) still pending or running (${shown}); it runs after the last one ends`,
    };
  },
  function waitingForChildren({ job, childrenLeft }) {
    if (!isWaitingRunAt(job.runAt)) return null;
    return {
      reason: 'waiting-for-children',
      childrenLeft,
      detail: `a flow parent waiting for ${childrenLeft} child job(s) still pending or running; it runs after the last one finishes`,
    };
  },
  function paused({ paused }) {
    return paused ? { reason: 'paused', detail: 'its queue is paused (QueueAdmin.pause): resume it to let jobs be claimed' } : null;
  },
  function notDueYet({ job }, _limits, now) {
    const runAt = intendedRunAt(job.runAt);
    if (runAt <= now) return null;
    if (job.attempts > 0) {
      return {
        reason: 'retry-backoff',
        until: new Date(runAt),
        detail: `attempt ${job.attempts} of ${job.maxAttempts} failed; the next one is due at ${at(runAt)} (backoff)`,
      };
    }
    return { reason: 'delayed', until: new Date(runAt), detail: `delayed: due at ${at(runAt)}` };
  },
  function noProcessor({ job, processorUntil }, limits, now) {
    if (limits.processesHere || (processorUntil !== null && processorUntil > now)) return null;
    const lapsed = processorUntil === null ? 'no process has ever announced one' : `the last announcement lapsed at ${at(processorUntil)}`;
    return {
      reason: 'no-processor',
      detail: `no live process has a @Processor for queue "${job.queue}" (${lapsed}): deploy or start its worker, or check the queue name`,
    };
  },
  function rateLimited({ limitedUntil }, _limits, now) {
    if (limitedUntil <= now) return null;
    return {
      reason: 'rate-limited',
      until: new Date(limitedUntil),
      detail: `its queue's rate limit (or a RateLimitError) holds claims until ${at(limitedUntil)}`,
    };
  },
  function groupRateLimited({ job, groupLimitedUntil }, _limits, now) {
    if (groupLimitedUntil <= now) return null;
    return {
      reason: 'group-rate-limited',
      until: new Date(groupLimitedUntil),
      detail: `its group "${job.group}" is held back until ${at(groupLimitedUntil)}: its group limiter's window is used up (groupLimiter), or a GroupRateLimitError paused it; the queue's other groups go on`,
    };
  },
  function globalConcurrency({ runningLive }, limits) {
    const limit = limits.globalConcurrency;
    if (limit === undefined || runningLive < limit) return null;
    return {
      reason: 'global-concurrency',
      detail: `its queue's global concurrency (${limit}) is used up: ${runningLive} job(s) run across all processes`,
    };
  },
  function groupConcurrency({ job, groupRunningLive }, limits) {
    const limit = limits.groupConcurrency;
    if (limit === undefined || job.group === null || job.group === undefined || groupRunningLive < limit) return null;
    return {
      reason: 'group-concurrency',
      detail: `its group "${job.group}" has ${groupRunningLive} job(s) running across all processes, its queue's group concurrency (${limit})`,
    };
  },
];

/**
 * Why the job of `facts` is where it is at `now` (see `QueueAdmin.explain`). Pure: every fact was read by one
 * statement, so the answer is of one moment, whatever the job does next.
 */
export function explainJob(facts: ExplainFacts, limits: ExplainLimits, now: number): JobExplanation {
  const { job } = facts;
  const { status } = job;
  if (status === 'completed' || status === 'failed' || status === 'cancelled') {
    const when = job.finishedAt === null ? '' : ` at ${at(job.finishedAt)}`;
    const error = status === 'failed' ? parseStoredError(job.error) : null;
    return { status, reason: 'finished', detail: `${status}${when}${error ? `: ${error}` : ''}` };
  }
  if (status === 'running') {
    const lease = job.leaseUntil ?? 0;
    const owner = job.lockedBy ?? 'unknown';
    if (job.startedAt === null && lease > now) {
      return {
        status,
        reason: 'claimed-ahead',
        owner,
        until: new Date(lease),
        detail:
          `attempt ${job.attempts} of ${job.maxAttempts} was claimed ahead (prefetch) by process ${owner} and waits there for a free ` +
          `slot: no handler has it yet. It holds its lease (until ${at(lease)}, renewed while it waits) and counts against the ` +
          `queue's global and group concurrency${batchNote(limits)}`,
      };
    }
    const detail =
      lease > now
        ? `attempt ${job.attempts} of ${job.maxAttempts} runs in process ${owner}; its lease runs until ${at(lease)} and is renewed while it runs`
        : `attempt ${job.attempts} of ${job.maxAttempts} was claimed by ${owner}, whose lease expired at ${at(lease)}: lease recovery will run it again`;
    return { status, reason: 'running', owner, until: new Date(lease), detail: detail + batchNote(limits) };
  }
  for (const check of PENDING_CHECKS) {
    const explained = check(facts, limits, now);
    if (explained) return { status, ...explained };
  }
  const ahead = facts.runningLive > 0 ? `; ${facts.runningLive} job(s) of the queue run now` : '';
  return {
    status,
    reason: 'due',
    detail: `due since ${at(intendedRunAt(job.runAt))}, waiting for a free slot of a processor of queue "${job.queue}"${ahead}${batchNote(limits)}`,
  };
}

/** A batch handler's jobs run as part of a batch: said where a job runs or waits for a slot (no statement more). */
function batchNote({ batch }: ExplainLimits): string {
  if (batch === undefined) return '';
  return `; its processor here runs the queue's jobs in batches of up to ${batch.size}, a partial batch waiting at most ${batch.maxWaitMs ?? 0} ms for more`;
}
