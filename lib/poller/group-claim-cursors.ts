import { ClaimRequest, JobRecord } from '../storage/queue-storage.interface';

/**
 * Where each grouped queue's claim walk starts in this process (see group-claim.sql.ts on both backends). The claim
 * reads a bounded window of a queue's groups, in name order from the cursor, so its cost follows the request's limit
 * and the queue's running jobs, not the number of groups; the cursor moves past the groups a claim served, so the
 * window comes round to every group. Kept in memory: a cursor only spreads turns, every process keeps
 * its own, and a restart starting again from the first group costs nothing but one round's order. Kept by the poller,
 * whose claims move it: the storage only runs the walk it is given (`ClaimRequest.groupAfter`).
 */
export class GroupClaimCursors {
  private readonly cursors = new Map<string, string>();

  /** The requests with each grouped queue's cursor (a copy of each such request; the others as they are). */
  apply(requests: ClaimRequest[]): ClaimRequest[] {
    if (!requests.some((request) => request.grouped === true)) return requests;
    return requests.map((request) => {
      const after = request.grouped === true ? this.cursors.get(request.queue) : undefined;
      return after === undefined ? request : { ...request, groupAfter: after };
    });
  }

  /**
   * Moves each grouped queue's cursor to the last group, in the walk's order (after the cursor, then wrapping to the
   * start), among the jobs the claim took. A round that took no grouped job leaves the cursor where it was.
   */
  advance(requests: ClaimRequest[], jobs: JobRecord[]): void {
    if (jobs.length === 0 || !requests.some((request) => request.grouped === true)) return;
    const taken = new Map<string, { wrapped?: string; ahead?: string }>();
    for (const job of jobs) {
      if (job.group === null || job.group === undefined) continue;
      const cursor = this.cursors.get(job.queue) ?? '';
      const last = taken.get(job.queue) ?? {};
      if (job.group > cursor) {
        if (last.ahead === undefined || job.group > last.ahead) last.ahead = job.group;
      } else if (last.wrapped === undefined || job.group > last.wrapped) {
        last.wrapped = job.group;
      }
      taken.set(job.queue, last);
    }
    for (const [queue, last] of taken) this.cursors.set(queue, (last.wrapped ?? last.ahead) as string);
  }
}
