// A job's attempt timeline (issue 29 item 5), from what the database stores and nothing else: each failed attempt's
// error (the stored error and its `previous` list, at most 10), the latest attempt's start, end and owner (the row's
// started_at, finished_at, locked_by), and the snooze count. Earlier attempts' start, end and owner are not stored:
// the panel says so rather than guess.

/** One row of the timeline. */
interface AttemptRow {
  attempt: number;
  outcome: string;
  start: string | null;
  end: string | null;
  owner: string | null;
  detail: string;
}

/** The outcome of a failed attempt's error: a lease that ran out is not a failure the handler threw. */
function failedOutcome(error: WireJobError): string {
  return error.name === 'LeaseExpiredError' ? 'lease expired' : 'failed';
}

/** The timeline's rows, newest attempt first. */
function attemptRows(job: WireJob): AttemptRow[] {
  const errors = job.error ? [job.error].concat(Array.isArray(job.error.previous) ? job.error.previous : []) : [];
  const byAttempt: Record<number, WireJobError> = {};
  errors.forEach((error) => {
    if (typeof error.attempt === 'number' && !byAttempt[error.attempt]) byAttempt[error.attempt] = error;
  });
  const rows: AttemptRow[] = [];
  for (let n = job.attempts; n >= 1; n--) {
    const latest = n === job.attempts;
    const error = byAttempt[n];
    let outcome = error ? failedOutcome(error) : 'not recorded';
    if (latest && job.status === 'running') outcome = 'running';
    else if (latest && job.status === 'completed') outcome = 'completed';
    else if (latest && job.status === 'cancelled' && !error) outcome = 'cancelled';
    const detail = error && outcome !== 'running' && outcome !== 'completed' ? error.name + ': ' + error.message : '';
    rows.push({
      attempt: n,
      outcome,
      // Only the latest attempt has stored times (and an owner while it runs).
      start: latest ? job.startedAt : null,
      end: latest && job.status !== 'running' && job.status !== 'pending' ? job.finishedAt : null,
      owner: latest && job.status === 'running' ? job.lockedBy : null,
      detail,
    });
  }
  return rows;
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
              rows.map((row) =>
                h('tr', { 'data-attempt': row.attempt, 'data-outcome': row.outcome }, [
                  h('td', { class: 'num', 'data-label': 'Attempt', text: String(row.attempt) }),
                  h('td', { 'data-label': 'Outcome' }, badge(row.outcome)),
                  h('td', { 'data-label': 'Started' }, row.start ? whenShort(row.start) : notStored()),
                  h('td', { 'data-label': 'Ended' }, row.end ? whenShort(row.end) : row.outcome === 'running' ? '' : notStored()),
                  h('td', { class: 'wrap', 'data-label': 'Process' }, row.owner ? row.owner : notStored()),
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
          (snoozes ? 'Snoozed ' + snoozes + ' time(s): snoozes do not count as attempts, and each is a line of the job log. ' : '') +
          'The database keeps the latest attempt’s start and end, the running attempt’s process, and each failed ' +
          'attempt’s error (the newest 10); an earlier attempt’s times and process are not stored, nor a hand-back.',
      }),
    ]);
  },
});
