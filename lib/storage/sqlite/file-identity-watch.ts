import { Stats, promises as fs, statSync } from 'node:fs';
import { PeriodicTask } from '../../utils/periodic-task';
import { FailureStreakLogger } from '../../utils/failure-streak';

/** How often the file's identity is compared with the one opened (ms): one `stat` per period, nothing per job. */
export const FILE_IDENTITY_CHECK_MS = 2000;

/**
 * Notices that the database file was deleted or replaced under a running process. The connection keeps working
 * on the file it opened (now unlinked, or no longer the one at the path): every job it writes is invisible to
 * other processes and lost at restart. The drivers do not expose the open file's descriptor, so the identity
 * (device and inode) is taken by path right after opening and compared with the path's, every period.
 */
export class FileIdentityWatch {
  private readonly identity: { dev: number; ino: number };
  private readonly task: PeriodicTask;
  private reported = false;

  constructor(
    private readonly path: string,
    logger: FailureStreakLogger,
    /** Called once, with what happened to the file. */
    private readonly onLost: (what: 'deleted' | 'replaced') => void,
    period = FILE_IDENTITY_CHECK_MS,
  ) {
    const { dev, ino } = statSync(path);
    this.identity = { dev, ino };
    this.task = new PeriodicTask(() => this.check(), { what: `Checking the database file ${path}`, period, logger });
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  private async check(): Promise<void> {
    if (this.reported) return;
    let stats: Stats;
    try {
      stats = await fs.stat(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return this.lost('deleted');
    }
    if (stats.dev !== this.identity.dev || stats.ino !== this.identity.ino) this.lost('replaced');
  }

  private lost(what: 'deleted' | 'replaced'): void {
    this.reported = true;
    this.onLost(what);
    void this.task.stop();
  }
}
