// A job's attempt timeline: every run the job's history keeps (JobInfo.runs: each attempt that
// ended other than by completing, the newest 10, with its start, end, owner, outcome and error; snoozes, hand-backs
// and rate limits are runs too), then the run the row itself describes (running, completed, cancelled). Failed
// attempts older than the history, or from before it was stored (schema step 12), are known only by their error:
// those rows say their times and process are not stored rather than guess.

/** One row of the timeline. */
interface AttemptRow {
  attempt: number;
  outcome: string;
  start: string | null;
  end: string | null;
  owner: string | null;
  detail: string;
  /** Its times and owner are in the history (false: known only by its stored error). */
  stored: boolean;
  /** The size of the batch handler call it ran in, or null (a single-job handler, or not recorded). */
  batch: number | null;
}

/** What each outcome reads as, and the badge colour it borrows from a status. */
const OUTCOME_LOOKS: Record<string, { label: string; tone: string }> = {
  running: { label: 'running', tone: 'running' },
  completed: { label: 'completed', tone: 'completed' },
  retried: { label: 'failed, retried', tone: 'failed' },
  failed: { label: 'failed', tone: 'failed' },
  'timed-out': { label: 'timed out', tone: 'failed' },
  'lease-expired': { label: 'lease expired', tone: 'failed' },
  snoozed: { label: 'snoozed', tone: 'pending' },
  'handed-back': { label: 'handed back', tone: 'pending' },
  'rate-limited': { label: 'rate limited', tone: 'pending' },
  cancelled: { label: 'cancelled', tone: 'cancelled' },
};

function outcomeBadge(outcome: string): HTMLSpanElement {
  const look = OUTCOME_LOOKS[outcome] || { label: outcome, tone: '' };
  return h('span', { class: 'badge ' + look.tone, text: look.label });
}

/** The outcome of an error known only by itself: a lease that ran out is not a failure the handler threw. */
function errorOutcome(error: WireJobError): string {
  return error.name === 'LeaseExpiredError' ? 'lease-expired' : error.name === 'JobTimeoutError' ? 'timed-out' : 'failed';
}

/** The timeline's rows, newest first. */
function attemptRows(job: WireJob): AttemptRow[] {
  const runs = Array.isArray(job.runs) ? job.runs : [];
  const rows: AttemptRow[] = runs.map((run) => ({
    attempt: run.attempt,
    outcome: run.outcome,
    start: run.startedAt,
    end: run.endedAt,
    owner: run.owner,
    detail: run.error ? run.error.name + ': ' + run.error.message : '',
    stored: true,
    batch: typeof run.batchSize === 'number' ? run.batchSize : null,
  }));
  // Failed attempts before the oldest run kept: their errors outlive the history (or predate it).
  const errors = job.error ? [job.error].concat(Array.isArray(job.error.previous) ? job.error.previous : []) : [];
  const oldest = runs.length ? runs[0].attempt : Infinity;
  const older: AttemptRow[] = [];
  errors.forEach((error) => {
    if (typeof error.attempt !== 'number' || error.attempt >= oldest) return;
    if (older.some((row) => row.attempt === error.attempt)) return;
    older.unshift({
      attempt: error.attempt,
      outcome: errorOutcome(error),
      start: null,
      end: null,
      owner: null,
      detail: error.name + ': ' + error.message,
      stored: false,
      batch: null,
    });
  });
  return older.concat(rows).reverse();
}

addJobPanel({
  name: 'attempts',
  title: 'Attempts',
  update(body, data) {
    const job = data.job;
    const snoozes = typeof job.snoozes === 'number' ? job.snoozes : 0;
    const rows = attemptRows(job);
    // A new node for each cell: one node appended twice would move.
    const notStored = () => h('span', { class: 'muted', text: 'not stored' });
    const none = () => h('span', { class: 'muted', text: '–' });
    const table = rows.length
      ? h(
          'div',
          { class: 'table-wrap' },
          h('table', { class: 'cards', 'data-attempts': rows.length }, [
            h(
              'thead',
              null,
              h('tr', null, [
                h('th', { scope: 'col', class: 'num', text: 'Attempt' }),
                h('th', { scope: 'col', text: 'Outcome' }),
                h('th', { scope: 'col', text: 'Started' }),
                h('th', { scope: 'col', text: 'Ended' }),
                h('th', { scope: 'col', text: 'Process' }),
                h('th', { scope: 'col', text: 'Error' }),
              ]),
            ),
            h(
              'tbody',
              null,
              rows.map((row, index) =>
                h('tr', { 'data-attempt': row.attempt, 'data-outcome': row.outcome, 'data-run': rows.length - index }, [
                  h('td', { class: 'num', 'data-label': 'Attempt', text: String(row.attempt) }),
                  h('td', { 'data-label': 'Outcome' }, [
                    outcomeBadge(row.outcome),
                    row.batch !== null && h('span', { class: 'muted', 'data-batch': row.batch, text: ' in a batch of ' + row.batch }),
                  ]),
                  h('td', { 'data-label': 'Started' }, row.start ? whenShort(row.start) : row.stored ? none() : notStored()),
                  h('td', { 'data-label': 'Ended' }, row.end ? whenShort(row.end) : row.stored ? '' : notStored()),
                  // A completion keeps its process (locked_by); a job completed by the 0.1.0 release has none: a dash.
                  h('td', { class: 'wrap', 'data-label': 'Process' }, row.owner ? row.owner : row.stored ? none() : notStored()),
                  h('td', { class: 'wrap error', 'data-label': 'Error', text: row.detail }),
                ]),
              ),
            ),
          ]),
        )
      : h('p', { class: 'muted', text: 'No attempt has started yet.' });
    fill(body, [
      table,
      h('p', {
        class: 'muted',
        'data-snoozes': snoozes,
        text:
          (snoozes ? 'Snoozed ' + snoozes + ' time(s): a snooze spends no attempt, so the next run has the same number. ' : '') +
          'The database keeps the newest 10 runs that did not complete, with their times, process and error; the run ' +
          'that completed has the job’s own times and the process that ran it. A run of a batch handler says how many ' +
          'jobs its call held.',
      }),
    ]);
  },
});
