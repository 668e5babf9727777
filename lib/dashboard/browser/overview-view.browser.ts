// Views: mount() builds the page once, update(data) refills its data parts on every poll.

/**
 * A page of the dashboard. Methods, not function-typed properties, on purpose: each view's `update` takes the answer
 * of its own `load` (a narrower type than PageData), and the polling loop only ever hands one to the other.
 */
interface View {
  title: string;
  load(): Promise<PageData>;
  mount(): Child;
  update(data: PageData): void;
  /** What the page shows when load() answers 404 (the queue page: no such queue); without it a 404 is an error. */
  missing?(message: string): Child;
  /** Whether the page shows missing() now. */
  gone?: boolean;
}

function capitalized(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}

function overviewView(): View {
  const table = h('div', { class: 'table-wrap' });
  const note = h('p', { class: 'muted' });
  return {
    title: 'Queues',
    load: () => request<OverviewData>('overview'),
    mount: () => [h('h1', { text: 'Queues' }), note, table, percentileLegend()],
    update(data: OverviewData) {
      const minutes = data.chartMinutes;
      note.textContent =
        data.queues.length +
        ' queue(s). Charts cover the last ' +
        minutes +
        ' minutes' +
        (data.sampled ? ' (sampled: the newest finished jobs only)' : '') +
        '.';
      const head = h(
        'tr',
        null,
        [h('th', { scope: 'col', text: 'Queue' }), h('th', { scope: 'col', text: 'State' }), h('th', { scope: 'col', text: 'Processor' })]
          .concat(state.statuses.map((st) => h('th', { scope: 'col', class: 'num', text: capitalized(st) })))
          .concat([
            h('th', { scope: 'col', text: 'Throughput' }),
            h('th', { scope: 'col', text: 'Wait p50 / p95' }),
            h('th', { scope: 'col', text: 'Run p50 / p95' }),
          ])
          .concat(data.readOnly ? [] : [h('th', { scope: 'col', text: 'Actions' })]),
      );
      const rows = data.queues.map((q) => {
        const m = q.metrics;
        const cells: HTMLElement[] = [
          h('th', { scope: 'row' }, queueLink(q.name, { 'data-focus': 'q:' + q.name })),
          h('td', { 'data-label': 'State' }, q.paused ? badge('paused') : badge('active')),
          h('td', { 'data-label': 'Processor' }, processorLabel(q)),
        ]
          .concat(
            state.statuses.map((st) =>
              h(
                'td',
                { class: 'num', 'data-count': st, 'data-label': capitalized(st) },
                h('a', {
                  href: queueHref(q.name, { status: listedStatus(st) }),
                  'aria-label': count(q.counts[st]) + ' ' + st + ' in ' + q.name,
                  text: count(q.counts[st]),
                }),
              ),
            ),
          )
          .concat([
            h(
              'td',
              { 'data-label': 'Throughput' },
              m
                ? h('div', { class: 'metric' }, [
                    sparkline(throughputSeries(m), 'count', minutes),
                    h('span', { 'data-done': '' }, [
                      h('span', { class: 'ok-text', text: count(m.completed) + ' completed' }),
                      ' · ',
                      h('span', { class: 'bad-text', text: count(m.failed) + ' failed' }),
                    ]),
                  ])
                : h('span', { class: 'muted', text: 'idle' }),
            ),
            h(
              'td',
              { 'data-label': 'Wait p50 / p95' },
              m && m.waitTime
                ? h('div', { class: 'metric' }, [
                    sparkline(percentileSeries('Wait', m.waitTimePerMinute), 'ms', minutes),
                    percentiles(m.waitTime),
                  ])
                : '–',
            ),
            h(
              'td',
              { 'data-label': 'Run p50 / p95' },
              m && m.runTime
                ? h('div', { class: 'metric' }, [
                    sparkline(percentileSeries('Run', m.runTimePerMinute), 'ms', minutes),
                    percentiles(m.runTime),
                  ])
                : '–',
            ),
          ]);
        if (!data.readOnly) {
          cells.push(
            h(
              'td',
              { 'data-label': 'Actions' },
              q.paused
                ? actionButton('Resume', queuePath(q.name, 'resume'), null, null, { 'aria-label': 'Resume ' + q.name })
                : actionButton('Pause', queuePath(q.name, 'pause'), null, null, { 'aria-label': 'Pause ' + q.name }),
            ),
          );
        }
        return h('tr', { 'data-queue': q.name }, cells);
      });
      fill(
        table,
        data.queues.length
          ? h('table', { class: 'cards' }, [
              h('caption', { class: 'muted', text: 'Jobs per queue and status', hidden: true }),
              h('thead', null, head),
              h('tbody', null, rows),
            ])
          : h('p', { text: 'No queue yet: queues appear once they have a job, a processor or a pause.' }),
      );
    },
  };
}
