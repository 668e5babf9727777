import { Logger } from '@nestjs/common';
import { EventStorage } from '../storage/queue-storage.interface';
import { FailureStreak } from '../utils/failure-streak';

/** Where the docs explain cluster events (named in every line this file logs). */
const DOCS = 'docs/observability.md#cluster-events';

/**
 * How often a process without `clusterEvents` looks again for processes that listen (it warns once, then stops
 * looking): one small read a minute while idle. Internal, not exported by the package: a test sets it short to see a
 * listener that appears after boot noticed, and puts it back.
 */
export const CLUSTER_NOTICE_TIMING = { recheckMs: 60_000 };

/**
 * Says so when cluster events would go quiet by surprise, in a process WITHOUT `clusterEvents`:
 *
 * - a listener here (`@QueueEventsListener`, a `QueueEvents` subscription) hears only this process's events: one line
 *   at boot naming the listeners (or at the first subscription), whether or not other processes exist;
 * - jobs this process runs, and the `added` events of those it adds, are never heard by processes that listen with
 *   `clusterEvents: true`: a warning once such a listener is found, in a process that runs jobs and in one that only
 *   adds them alike. Asked at boot (one statement; in a process that runs no jobs, at its first add), then every
 *   `recheckInterval` until found, then never again: an idle process pays one small read per minute by default, and
 *   none after it has warned.
 *
 * The default stays off (nothing is published unless asked for): publishing by default would cost every process a
 * reader check per `pollInterval` and every job its events' writes once anyone listens. A line that says what is
 * missing costs almost nothing and changes no behaviour.
 */
export class ClusterEventsNotice {
  private listenersNoticed = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  /** Listeners of this process that, without `clusterEvents`, hear only it: logged once per process. */
  localListeners(who: string): void {
    if (this.listenersNoticed) return;
    this.listenersNoticed = true;
    this.logger.log(
      `${who}: clusterEvents is off in this process, so they hear only this process's job events; jobs that other processes ` +
        `run, retry or recover are not heard. Set clusterEvents: true here and in the processes that run those jobs (${DOCS})`,
    );
  }

  /**
   * Watches for processes that listen to cluster events, which never hear this one (it publishes nothing). The first
   * check is awaited: it runs within boot, before the app reports ready. Never throws: a failed check is logged and
   * tried again at the next interval.
   */
  async watchForListeners(
    storage: () => Promise<Pick<EventStorage, 'hasEventReaders'>>,
    readerTtl: number,
    recheckInterval: number,
    runsJobs: boolean,
  ): Promise<void> {
    // What this process would publish: a producer-only one's adds are events too (`added`), heard nowhere else.
    const unheard = runsJobs
      ? 'the events of the jobs it runs are not published'
      : "it runs no jobs, and the 'added' events of the jobs it adds are not published";
    // The first failure of an outage is logged, and its end; not every look.
    const failures = new FailureStreak(this.logger, 'Cluster events: looking for processes that listen', recheckInterval, false);
    const check = async (): Promise<void> => {
      let found = false;
      try {
        found = await (await storage()).hasEventReaders(Date.now() - readerTtl);
        failures.succeeded();
      } catch (error) {
        failures.failed(error);
      }
      if (this.stopped) return;
      if (found) {
        this.logger.warn(
          'Some process listens to cluster events on this database (clusterEvents: true), but clusterEvents is off in this ' +
            `process: ${unheard}, and that listener never hears them. Set clusterEvents: true here too (${DOCS})`,
        );
        return;
      }
      this.timer = setTimeout(() => void check(), recheckInterval);
      this.timer.unref();
    };
    await check();
  }

  /** Stops watching. Idempotent. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
