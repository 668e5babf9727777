// The processes sharing the database: this app's processors, the workers seen running jobs, and each queue's
// processor announcement.

function processesView(): View {
  const body = h('div');
  return {
    title: 'Processes',
    load: () => request<ProcessesData>('processes'),
    mount: () => [h('h1', { text: 'Processes' }), body],
    update(data: ProcessesData) {
      const table = (titles: string[], rows: HTMLElement[], empty: string) =>
        rows.length
          ? h(
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
            )
          : h('p', { class: 'muted', text: empty });
      fill(body, [
        h('h2', { text: 'This app' }),
        h('p', null, ['Worker id ', h('code', { text: data.self.workerId })]),
        table(
          ['Queue', 'Concurrency'],
          data.self.processors.map((p) =>
            h('tr', { 'data-local-processor': p.queue }, [
              h('td', { 'data-label': 'Queue' }, h('a', { href: queueHref(p.queue), text: p.queue })),
              h('td', { class: 'num', 'data-label': 'Concurrency', text: p.concurrency }),
            ]),
          ),
          'This app runs no processor: it only enqueues or watches.',
        ),
        h('h2', { text: 'Workers running jobs' }),
        table(
          ['Worker id', 'Running', 'Last seen'],
          data.workers.map((w) =>
            h('tr', { 'data-worker': w.workerId }, [
              h('td', { class: 'wrap', 'data-label': 'Worker id' }, [
                h('code', { text: w.workerId }),
                w.workerId === data.self.workerId ? h('span', { class: 'muted', text: ' (this app)' }) : null,
              ]),
              h(
                'td',
                { 'data-label': 'Running' },
                w.queues.map((q, i) => [i ? ', ' : '', h('a', { href: queueHref(q.queue), text: q.queue }), ' × ' + q.running]),
              ),
              h('td', { 'data-label': 'Last seen' }, whenShort(w.lastSeen)),
            ]),
          ),
          'No job is running anywhere now. (An idle process shows only through its queues below.)',
        ),
        h('h2', { text: 'Queues with a processor somewhere' }),
        table(
          ['Queue', 'Announced until'],
          data.announcements.map((a) =>
            h('tr', { 'data-announced': a.queue }, [
              h('td', { 'data-label': 'Queue' }, h('a', { href: queueHref(a.queue), text: a.queue })),
              h('td', { 'data-label': 'Announced until' }, whenShort(a.until)),
            ]),
          ),
          'No process announces a processor.',
        ),
      ]);
    },
  };
}
