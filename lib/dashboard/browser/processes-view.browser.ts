// The processes sharing the database: every processing process that announced itself (idle ones too; stopped and
// lost ones for an hour), this app's processors, workers running jobs that announce no process (older builds), and
// each queue's processor announcement.

/** What each state reads as, and the badge colour it borrows from a status. */
const PROCESS_LOOKS: Record<string, { label: string; tone: string; title: string }> = {
  live: { label: 'live', tone: 'completed', title: 'announcing itself' },
  stopped: { label: 'stopped', tone: 'cancelled', title: 'shut down' },
  lost: { label: 'lost', tone: 'failed', title: 'stopped announcing without a shutdown: crashed, killed, hung or cut off' },
};

/** A table of cards with these column titles, or a line that says it is empty. */
function cardsTable(titles: string[], rows: HTMLElement[], empty: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted', text: empty });
  return h(
    'div',
    { class: 'table-wrap' },
    h('table', { class: 'cards' }, [
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          titles.map((t) => h('th', { scope: 'col', text: t })),
        ),
      ),
      h('tbody', null, rows),
    ]),
  );
}

function processesView(): View {
  const body = h('div');
  return {
    title: 'Processes',
    load: () => request<ProcessesData>('processes'),
    mount: () => [h('h1', { text: 'Processes' }), body],
    update(data: ProcessesData) {
      fill(body, [
        h('h2', { text: 'This app' }),
        h('p', null, ['Worker id ', h('code', { text: data.self.workerId })]),
        cardsTable(
          ['Queue', 'Concurrency'],
          data.self.processors.map((p) =>
            h('tr', { 'data-local-processor': p.queue }, [
              h('td', { 'data-label': 'Queue' }, queueLink(p.queue)),
              h('td', { class: 'num', 'data-label': 'Concurrency', text: p.concurrency }),
            ]),
          ),
          'This app runs no processor: it only enqueues or watches.',
        ),
        h('h2', { text: 'Processes' }),
        cardsTable(
          ['Worker id', 'State', 'Processors', 'Started', 'Last seen'],
          data.processes.map((p) => {
            const look = PROCESS_LOOKS[p.state] || { label: p.state, tone: '', title: '' };
            return h('tr', { 'data-process': p.workerId, 'data-state': p.state }, [
              h('td', { class: 'wrap', 'data-label': 'Worker id' }, [
                h('code', { text: p.workerId }),
                p.workerId === data.self.workerId && p.state === 'live' ? h('span', { class: 'muted', text: ' (this app)' }) : null,
              ]),
              h('td', { 'data-label': 'State' }, [
                h('span', { class: 'badge ' + look.tone, title: look.title, text: look.label }),
                // When it stopped: an element (a <time>), so a child of the span, not text.
                p.stoppedAt ? h('span', { class: 'muted' }, [' ', whenShort(p.stoppedAt)]) : null,
              ]),
              h(
                'td',
                { 'data-label': 'Processors' },
                // One element: a phone's card lays a cell's children out in a row, so a list of them would not wrap.
                h(
                  'span',
                  null,
                  p.processors.map((q, i) => [
                    i ? ', ' : '',
                    queueLink(q.queue),
                    ' ',
                    h('span', { 'data-running': q.queue, text: q.running + '/' + q.concurrency }),
                  ]),
                ),
              ),
              h('td', { 'data-label': 'Started' }, whenShort(p.startedAt)),
              h('td', { 'data-label': 'Last seen' }, whenShort(p.lastSeen)),
            ]);
          }),
          'No process announces a processor.',
        ),
        h('p', { class: 'muted', text: 'Processors read running/concurrency. Stopped and lost processes stay listed for an hour.' }),
        ...unannounced(data),
        h('h2', { text: 'Queues with a processor somewhere' }),
        cardsTable(
          ['Queue', 'Announced until'],
          data.announcements.map((a) =>
            h('tr', { 'data-announced': a.queue }, [
              h('td', { 'data-label': 'Queue' }, queueLink(a.queue)),
              h('td', { 'data-label': 'Announced until' }, whenShort(a.until)),
            ]),
          ),
          'No process announces a processor.',
        ),
      ]);
    },
  };
}

/**
 * Worker ids running jobs that announce no process (a build before the processes table, or a row already
 * forgotten): shown apart, so no running job is unaccounted for.
 */
function unannounced(data: ProcessesData): HTMLElement[] {
  const known = new Set(data.processes.filter((p) => p.state === 'live').map((p) => p.workerId));
  const others = data.workers.filter((w) => !known.has(w.workerId));
  if (others.length === 0) return [];
  return [
    h('h2', { text: 'Other workers running jobs' }),
    cardsTable(
      ['Worker id', 'Running', 'Last seen'],
      others.map((w) =>
        h('tr', { 'data-worker': w.workerId }, [
          h('td', { class: 'wrap', 'data-label': 'Worker id' }, h('code', { text: w.workerId })),
          h(
            'td',
            { 'data-label': 'Running' },
            w.queues.map((q, i) => [i ? ', ' : '', queueLink(q.queue), ' × ' + q.running]),
          ),
          h('td', { 'data-label': 'Last seen' }, whenShort(w.lastSeen)),
        ]),
      ),
      '',
    ),
  ];
}
