// A queue's page: its state, actions (queue-tools.browser.ts), charts, panels, and one page of its jobs (of a status,
// or found by a search: job-table.browser.ts).

function queueView(name: string, params: URLSearchParams): View {
  const status = params.get('status') || '';
  const search = params.get('search') || '';
  const jobName = params.get('name') || '';
  const group = params.get('group') || '';
  const sort = params.get('sort') || '';
  const order = params.get('order') || '';
  const offset = Number(params.get('offset') || 0) || 0;
  // What every link of the page keeps: the filters and the order (a poll, a page, a tab, a search keep the sort).
  const kept = { status: status, name: jobName, group: group, sort: sort, order: order };
  const heading = h('h1');
  const limits = h('p', { class: 'muted', 'data-limits': '' });
  const tools = h('div', { class: 'toolbar' });
  const tabs = h('ul', { class: 'tabs', 'aria-label': 'Status' });
  const charts = h('div', { class: 'charts' });
  const list = h('div', { id: 'queue-jobs' });
  const panels = mountPanels(queuePanels, 'queue-panels');
  const table: JobTableState = { selected: new Set<string>(), kept: kept, search: search };
  const searchInput = h('input', {
    type: 'search',
    id: 'job-search',
    name: 'search',
    value: search,
    placeholder: 'e.g. 42, invoice-17 or ada@example.com',
    autocomplete: 'off',
  });
  const nameInput = h('input', {
    type: 'search',
    id: 'job-name',
    name: 'name',
    value: jobName,
    placeholder: 'e.g. receipt',
    autocomplete: 'off',
  });
  const searchForm = h(
    'form',
    {
      class: 'inline',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = queueHref(name, { name: jobName, group: group, sort: sort, order: order, search: searchInput.value.trim() });
      },
    },
    [
      h('label', { for: 'job-search' }, ['Search by id, key or text', searchInput]),
      h('button', { type: 'submit', text: 'Search' }),
      search ? h('a', { href: queueHref(name, { name: jobName, group: group, sort: sort, order: order }), text: 'Clear search' }) : null,
    ],
  );
  const nameForm = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Filter by job name',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = queueHref(name, { ...kept, name: nameInput.value.trim() });
      },
    },
    [
      h('label', { for: 'job-name' }, ['Job name', nameInput]),
      h('button', { type: 'submit', text: 'Filter' }),
      jobName ? h('a', { href: queueHref(name, { ...kept, name: '' }), text: 'All names' }) : null,
    ],
  );
  const query = queuePath(name, undefined, {
    status: status,
    offset: String(offset),
    search: search,
    name: jobName,
    group: group,
    sort: sort,
    order: order,
  });
  let mountedTools = false;
  let last: QueueData | null = null;
  table.redraw = () => {
    if (last) fill(list, [groupFilterLine(last), jobsTable(last, table)]);
  };
  return {
    title: 'Queue ' + name,
    load: () => request<QueueData>(query),
    mount: () => [
      h('p', null, h('a', { href: '#/', text: '← All queues' })),
      heading,
      limits,
      tools,
      h('h2', { text: 'Activity' }),
      charts,
      panels.element,
      h('h2', { text: 'Jobs' }),
      tabs,
      h('div', { class: 'filters' }, [searchForm, nameForm]),
      list,
    ],
    // A mistyped URL names no queue (404): say so, with nothing to act on (an action would create the queue).
    missing: (message) => [
      h('p', null, h('a', { href: '#/', text: '← All queues' })),
      h('h1', { text: 'No such queue' }),
      h('p', { 'data-missing': '', text: message }),
    ],
    update(data: QueueData) {
      last = data;
      const q = data.queue;
      // The name wraps anywhere (a heading shows it whole): a long one without a space would widen the page.
      fill(heading, [
        h('span', { class: 'queue-title', text: 'Queue ' + q.name }),
        q.paused ? badge('paused') : badge('active'),
        h('small', { class: 'muted' }, processorLabel(q)),
      ]);
      const limitText = limitsLabel(data.limits);
      fill(limits, limitText);
      limits.hidden = limitText === null;
      if (!data.readOnly) fill(tools, queueTools(q));
      else if (!mountedTools) fill(tools, h('p', { class: 'muted', text: 'Read-only dashboard: no actions.' }));
      mountedTools = true;
      const m = q.metrics;
      const minutes = state.chartMinutes;
      fill(charts, [
        chart(
          'Throughput',
          throughputSeries(m || { completedPerMinute: emptyMinutes(minutes), failedPerMinute: emptyMinutes(minutes) }),
          'count',
          minutes,
        ),
        chart('Wait time (p50, p95)', percentileSeries('Wait', m && m.waitTimePerMinute), 'ms', minutes),
        chart('Run time (p50, p95)', percentileSeries('Run', m && m.runTimePerMinute), 'ms', minutes),
      ]);
      fitAxisText(charts);
      panels.update(data);
      // Filtered by job name, group or both, the tabs count those jobs (with a search too: the list shows the matches).
      const counts = data.nameCounts || q.counts;
      const total = state.statuses.reduce((sum, st) => sum + (counts[st] || 0), 0);
      const tabList: [string, string, number][] = [['', 'All', total]];
      fill(
        tabs,
        tabList.concat(state.statuses.map((st): [string, string, number] => [st, st, counts[st] || 0])).map((tab) =>
          h(
            'li',
            null,
            h(
              'a',
              {
                href: queueHref(name, { ...kept, status: listedStatus(tab[0]) }),
                'aria-current': !search && tab[0] === status ? 'page' : null,
                'data-focus': 'tab:' + tab[0],
              },
              tab[1] + ' (' + count(tab[2]) + ')',
            ),
          ),
        ),
      );
      fill(list, [groupFilterLine(data), jobsTable(data, table)]);
    },
  };
}
