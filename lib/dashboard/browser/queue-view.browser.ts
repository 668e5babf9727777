// A queue's page: its state, actions, charts, and one page of its jobs (of a status, or found by a search).

function queueView(name: string, params: URLSearchParams): View {
  const status = params.get('status') || '';
  const search = params.get('search') || '';
  const offset = Number(params.get('offset') || 0) || 0;
  const heading = h('h1');
  const tools = h('div', { class: 'toolbar' });
  const tabs = h('ul', { class: 'tabs', 'aria-label': 'Status' });
  const charts = h('div', { class: 'charts' });
  const groups = h('div');
  const list = h('div');
  const searchInput = h('input', {
    type: 'search',
    id: 'job-search',
    name: 'search',
    value: search,
    placeholder: 'e.g. 42 or invoice-17',
    autocomplete: 'off',
  });
  const searchForm = h(
    'form',
    {
      class: 'inline',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = queueHref(name, { search: searchInput.value.trim() });
      },
    },
    [
      h('label', { for: 'job-search' }, ['Search by job id or key', searchInput]),
      h('button', { type: 'submit', text: 'Search' }),
      search ? h('a', { href: queueHref(name), text: 'Clear search' }) : null,
    ],
  );
  const query =
    'queues/' + encodeURIComponent(name) + '?' + new URLSearchParams({ status: status, offset: String(offset), search: search }).toString();
  let mountedTools = false;
  return {
    title: 'Queue ' + name,
    load: () => request<QueueData>(query),
    mount: () => [
      h('p', null, h('a', { href: '#/', text: '← All queues' })),
      heading,
      tools,
      h('h2', { text: 'Activity' }),
      charts,
      groups,
      h('h2', { text: 'Jobs' }),
      tabs,
      searchForm,
      list,
    ],
    // A mistyped URL names no queue (404): say so, with nothing to act on (an action would create the queue).
    missing: (message) => [
      h('p', null, h('a', { href: '#/', text: '← All queues' })),
      h('h1', { text: 'No such queue' }),
      h('p', { 'data-missing': '', text: message }),
    ],
    update(data: QueueData) {
      const q = data.queue;
      fill(heading, [
        'Queue ' + q.name,
        q.paused ? badge('paused') : badge('active'),
        q.hasProcessor
          ? h('small', { class: 'muted', text: 'processor here, concurrency ' + q.concurrency })
          : h('span', { class: 'badge none', text: 'no processor in this app' }),
      ]);
      if (!data.readOnly) fill(tools, queueTools(q));
      else if (!mountedTools) fill(tools, h('p', { class: 'muted', text: 'Read-only dashboard: no actions.' }));
      mountedTools = true;
      fill(groups, groupsPanel(data));
      const m = q.metrics;
      const minutes = state.chartMinutes;
      fill(charts, [
        chart(
          'Throughput',
          throughputSeries(m || { completedPerMinute: emptyMinutes(minutes), failedPerMinute: emptyMinutes(minutes) }),
          'count',
          minutes,
        ),
        chart(
          'Wait and run time (p50, p95)',
          [
            { name: 'Wait p50', values: pick(m && m.waitTimePerMinute, 'p50'), color: 'wait', dashed: true },
            { name: 'Wait p95', values: pick(m && m.waitTimePerMinute, 'p95'), color: 'wait' },
            { name: 'Run p50', values: pick(m && m.runTimePerMinute, 'p50'), color: 'run', dashed: true },
            { name: 'Run p95', values: pick(m && m.runTimePerMinute, 'p95'), color: 'run' },
          ],
          'ms',
          minutes,
        ),
      ]);
      const total = state.statuses.reduce((sum, st) => sum + q.counts[st], 0);
      const tabList: [string, string, number][] = [['', 'All', total]];
      fill(
        tabs,
        tabList.concat(state.statuses.map((st): [string, string, number] => [st, st, q.counts[st]])).map((tab) =>
          h(
            'li',
            null,
            h(
              'a',
              {
                href: queueHref(name, { status: tab[0] }),
                'aria-current': !search && tab[0] === status ? 'page' : null,
                'data-focus': 'tab:' + tab[0],
              },
              tab[1] + ' (' + count(tab[2]) + ')',
            ),
          ),
        ),
      );
      fill(list, jobsTable(data));
    },
  };
}

/** A queue's actions: pause or resume, retry the failed jobs, clean finished jobs. */
function queueTools(q: WireQueue): Child {
  const path = 'queues/' + encodeURIComponent(q.name) + '/';
  const minutesInput = h('input', { type: 'number', id: 'clean-minutes', min: '0', step: '1', value: '60', 'data-focus': 'clean-minutes' });
  const which = h('select', { id: 'clean-status', 'data-focus': 'clean-status' }, [
    h('option', { value: 'completed', text: 'completed' }),
    h('option', { value: 'failed', text: 'failed' }),
    h('option', { value: 'cancelled', text: 'cancelled' }),
    h('option', { value: 'all', text: 'all finished' }),
  ]);
  const form = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Clean finished jobs',
      onsubmit: (event) => {
        event.preventDefault();
        const minutes = Number(minutesInput.value);
        const statuses = which.value === 'all' ? ['completed', 'failed', 'cancelled'] : [which.value];
        act(
          path + 'clean',
          { statuses: statuses, olderThanMinutes: minutes },
          'Delete the ' +
            statuses.join('/') +
            ' jobs of ' +
            q.name +
            ' that finished more than ' +
            minutes +
            ' minute(s) ago? This cannot be undone.',
        );
      },
    },
    [
      h('label', { for: 'clean-status' }, ['Clean jobs', which]),
      h('label', { for: 'clean-minutes' }, ['finished more than (minutes) ago', minutesInput]),
      h('button', { type: 'submit', class: 'danger', 'data-focus': 'clean' }, 'Clean'),
    ],
  );
  return [
    q.paused ? actionButton('Resume queue', path + 'resume') : actionButton('Pause queue', path + 'pause'),
    actionButton('Retry all failed', path + 'retry-failed', null, null, { disabled: q.counts.failed === 0 ? true : null }),
    cleanForm(q.name, form),
  ];
}

// The clean form keeps what the operator typed across refreshes: the first one built for a queue is reused.
const cleanForms: Record<string, HTMLFormElement> = {};
function cleanForm(name: string, form: HTMLFormElement): HTMLFormElement {
  if (!cleanForms[name]) cleanForms[name] = form;
  return cleanForms[name];
}

/** The jobs of the page, and the pager (a search shows every match on one page). */
function jobsTable(data: QueueData): Child {
  if (!data.jobs.length)
    return h('p', { text: data.search ? 'No job of this queue has id or key "' + data.search + '".' : 'No job here.' });
  // A job name column appears when the server's jobs carry one (JobInfo may grow fields; the page follows).
  const named = data.jobs.some((job) => typeof job.name === 'string');
  const grouped = jobsHaveGroups(data);
  const rows = data.jobs.map((job) =>
    h('tr', { 'data-job': job.id }, [
      h('td', null, h('a', { href: jobHref(job.id), 'data-focus': 'job:' + job.id, text: job.id })),
      named ? h('td', { 'data-label': 'Name', text: typeof job.name === 'string' ? job.name : '' }) : null,
      grouped ? h('td', { class: 'wrap', 'data-label': 'Group', text: typeof job.group === 'string' ? job.group : '' }) : null,
      h('td', { 'data-label': 'Status' }, badge(job.status)),
      h(
        'td',
        { class: 'wrap', 'data-label': 'Key' },
        isHidden(job, 'key')
          ? h('span', { class: 'muted', text: 'hidden' })
          : job.key === null
            ? h('span', { class: 'muted', text: '–' })
            : job.key,
      ),
      h('td', { class: 'num', 'data-label': 'Attempts' }, job.attempts + ' / ' + job.maxAttempts),
      h('td', { 'data-label': 'Created' }, when(job.createdAt)),
      h('td', { 'data-label': 'Finished' }, when(job.finishedAt)),
      h('td', { class: 'wrap', 'data-label': 'Last error' }, job.error || ''),
    ]),
  );
  const titles = [
    'Id',
    named ? 'Name' : null,
    grouped ? 'Group' : null,
    'Status',
    'Key',
    'Attempts',
    'Created',
    'Finished',
    'Last error',
  ].filter((title): title is string => title !== null);
  const head = h(
    'tr',
    null,
    titles.map((title) => h('th', { scope: 'col', class: title === 'Attempts' ? 'num' : null, text: title })),
  );
  const parts: Child[] = [
    h('div', { class: 'table-wrap' }, h('table', { class: 'cards' }, [h('thead', null, head), h('tbody', null, rows)])),
  ];
  if (!data.search) {
    const from = data.offset + 1;
    const to = data.offset + data.jobs.length;
    const name = data.queue.name;
    const status = data.status || '';
    parts.push(
      h('nav', { class: 'pager', 'aria-label': 'Pages' }, [
        data.offset > 0
          ? h('a', {
              href: queueHref(name, { status: status, offset: Math.max(0, data.offset - data.limit) || null }),
              text: '← Newer',
              'data-focus': 'newer',
            })
          : null,
        h('span', { text: 'Jobs ' + from + '–' + to + ' of ' + count(data.total) }),
        to < data.total
          ? h('a', { href: queueHref(name, { status: status, offset: data.offset + data.limit }), text: 'Older →', 'data-focus': 'older' })
          : null,
      ]),
    );
  }
  return parts;
}
