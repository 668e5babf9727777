// A queue's page: its state, actions, charts, and one page of its jobs (of a status, or found by a search).

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
  const query =
    'queues/' +
    encodeURIComponent(name) +
    '?' +
    new URLSearchParams({
      status: status,
      offset: String(offset),
      search: search,
      name: jobName,
      group: group,
      sort: sort,
      order: order,
    }).toString();
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
      fill(heading, ['Queue ' + q.name, q.paused ? badge('paused') : badge('active'), h('small', { class: 'muted' }, processorLabel(q))]);
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
                href: queueHref(name, { ...kept, status: tab[0] }),
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

/** What the job table keeps across polls: the selected ids, and the page's filters and order (its links keep them). */
interface JobTableState {
  selected: Set<string>;
  kept: { status: string; name: string; group: string; sort: string; order: string };
  search: string;
  /** Rebuilds the table from the last answer (a selection changed). */
  redraw?: () => void;
}

/** The orders of `getJobs` a column header asks for (the server sorts the whole queue, not the page). */
type SortKey = 'id' | 'name' | 'attempts' | 'createdAt' | 'finishedAt';

/** The columns: title, the order its header asks for (null: not sortable), and the cell's label. */
const JOB_COLUMNS: { title: string; key: SortKey | null; label: string }[] = [
  { title: 'Id', key: 'id', label: 'Id' },
  { title: 'Name', key: 'name', label: 'Name' },
  { title: 'Status', key: null, label: 'Status' },
  { title: 'Key', key: null, label: 'Key' },
  { title: 'Attempts', key: 'attempts', label: 'Attempts' },
  { title: 'Created', key: 'createdAt', label: 'Created' },
  { title: 'Finished', key: 'finishedAt', label: 'Finished' },
  { title: 'Error', key: null, label: 'Error' },
];

/** The sort line above the jobs: what they are ordered by, whether over the whole queue, and the way back. */
function sortLine(data: QueueData, table: JobTableState): Child {
  const sort = data.sort;
  if (!sort) return null;
  const title = JOB_COLUMNS.filter((column) => column.key === sort.by).map((column) => column.title)[0] || sort.by;
  return h('p', { class: 'muted', 'data-sort-line': sort.by + ' ' + sort.order, 'data-exact': String(sort.exact) }, [
    'Sorted by ' + title.toLowerCase() + (sort.order === 'asc' ? ', ascending' : ', descending'),
    sort.exact ? ', across the queue' : ', among the newest 100,000 jobs of the database (no index serves this order here)',
    ' · ',
    h('a', { href: queueHref(data.queue.name, { ...table.kept, sort: '', order: '', search: table.search }), text: 'Newest first' }),
  ]);
}

/**
 * Where the page stands: "Jobs 1–25 of 300". An order sorted among the newest jobs (the sort line says so) has no
 * count before its last page: its pages say there are more, and the last one how many that order holds, which is
 * not the status count when the queue reaches past those newest jobs.
 */
function pagerText(data: QueueData, from: number, to: number): string {
  if (data.jobs.length === 0 && data.offset > 0) return 'No job at ' + count(from) + ' or after';
  const jobs = 'Jobs ' + count(from) + '–' + count(to);
  const inOrder = data.sort && !data.sort.exact ? ' in this order' : '';
  if (data.total === null) return jobs + (data.more ? ' of more than ' + count(to) + inOrder : '');
  return jobs + ' of ' + count(data.total) + inOrder;
}

/** The bulk actions for the selected jobs of the page. */
function bulkBar(data: QueueData, table: JobTableState): Child {
  if (data.readOnly) return null;
  const ids = data.jobs.filter((job) => table.selected.has(job.id)).map((job) => job.id);
  const run = (action: string, confirmText: string | null) => () => {
    if (!ids.length) return;
    void act('bulk/' + action, { ids: ids }, confirmText ? confirmText.replace('%n', String(ids.length)) : null).then((answer) => {
      // Done: the selection is spent (the refresh that act made already shows the jobs' new states).
      if (answer) table.selected.clear();
      if (table.redraw) table.redraw();
    });
  };
  const none = ids.length === 0 ? true : null;
  return h('div', { class: 'toolbar bulk', role: 'group', 'aria-label': 'Selected jobs' }, [
    h('span', { class: 'muted', 'data-selected': ids.length, text: ids.length + ' selected' }),
    h('button', { type: 'button', disabled: none, onclick: run('retry', null), 'data-focus': 'bulk-retry' }, 'Retry selected'),
    h(
      'button',
      { type: 'button', class: 'danger', disabled: none, onclick: run('cancel', 'Cancel %n job(s)?'), 'data-focus': 'bulk-cancel' },
      'Cancel selected',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        disabled: none,
        onclick: run('remove', 'Remove %n job(s) for good? This cannot be undone.'),
        'data-focus': 'bulk-remove',
      },
      'Remove selected',
    ),
  ]);
}

/** What a search looked in, as its result says it: the text only among the database's newest jobs. */
function searchScope(data: QueueData): string {
  if (data.textSearch === false) return 'has id or key "' + data.search + '" (the text of jobs is not searched: their data is redacted)';
  const scanned = typeof data.searchScanRows === 'number' ? count(data.searchScanRows) : 'newest';
  return 'has id or key "' + data.search + '", nor text "' + data.search + '" among the newest ' + scanned + ' jobs of the database';
}

/**
 * The jobs of the page, and the pager. A search is one page of its first matches, not paged: a line says how many it
 * shows and, when it found more than a page, that more may match (a narrower search finds them).
 */
function jobsTable(data: QueueData, table: JobTableState): Child {
  if (!data.jobs.length) return h('p', { text: data.search ? 'No job of this queue ' + searchScope(data) + '.' : 'No job here.' });
  const onPage = new Set(data.jobs.map((job) => job.id));
  table.selected.forEach((id) => {
    if (!onPage.has(id)) table.selected.delete(id);
  });
  const selectable = !data.readOnly;
  const toggle = (id: string) => (event: Event) => {
    if ((event.target as HTMLInputElement).checked) table.selected.add(id);
    else table.selected.delete(id);
    if (table.redraw) table.redraw();
  };
  // A Group column appears when the page's jobs carry groups (groups-panel.browser.ts).
  const grouped = jobsHaveGroups(data);
  const columns = grouped ? [...JOB_COLUMNS.slice(0, 2), GROUP_COLUMN, ...JOB_COLUMNS.slice(2)] : JOB_COLUMNS;
  const rows = data.jobs.map((job) =>
    h('tr', { 'data-job': job.id, 'aria-selected': selectable ? String(table.selected.has(job.id)) : null }, [
      selectable
        ? h(
            'td',
            { class: 'pick' },
            h('input', {
              type: 'checkbox',
              'aria-label': 'Select job ' + job.id,
              checked: table.selected.has(job.id),
              'data-focus': 'pick:' + job.id,
              onchange: toggle(job.id),
            }),
          )
        : null,
      h('td', { 'data-label': 'Id' }, h('a', { href: jobHref(job.id), 'data-focus': 'job:' + job.id, text: job.id })),
      h(
        'td',
        { class: 'wrap name', 'data-label': 'Name' },
        typeof job.name === 'string' ? job.name : h('span', { class: 'muted', text: '–' }),
      ),
      grouped ? h('td', { class: 'wrap', 'data-label': 'Group' }, groupCell(data, job)) : null,
      h('td', { 'data-label': 'Status' }, badge(job.status)),
      h(
        'td',
        { class: 'wrap key', 'data-label': 'Key' },
        isHidden(job, 'key')
          ? h('span', { class: 'muted', text: 'hidden' })
          : job.key === null
            ? h('span', { class: 'muted', text: '–' })
            : job.key,
      ),
      h('td', { class: 'num', 'data-label': 'Attempts' }, job.attempts + ' / ' + job.maxAttempts),
      h('td', { 'data-label': 'Created' }, whenShort(job.createdAt)),
      h('td', { 'data-label': 'Finished' }, whenShort(job.finishedAt)),
      // A failed or cancelled job's error is its last; a job still going shows the error its next attempt follows.
      h(
        'td',
        { class: 'wrap error', 'data-label': 'Error' },
        job.error
          ? job.status === 'failed' || job.status === 'cancelled'
            ? h('span', { title: job.error, text: job.error })
            : h('span', { class: 'muted', title: job.error, text: 'previous attempt: ' + job.error })
          : '',
      ),
    ]),
  );
  const allPicked = selectable && data.jobs.every((job) => table.selected.has(job.id));
  const head = h('tr', null, [
    selectable
      ? h(
          'th',
          { scope: 'col', class: 'pick' },
          h('input', {
            type: 'checkbox',
            'aria-label': 'Select all jobs of this page',
            checked: allPicked,
            'data-focus': 'pick:all',
            onchange: (event: Event) => {
              const on = (event.target as HTMLInputElement).checked;
              data.jobs.forEach((job) => (on ? table.selected.add(job.id) : table.selected.delete(job.id)));
              if (table.redraw) table.redraw();
            },
          }),
        )
      : null,
    columns.map((column) => {
      const key = column.key;
      const sorted = key && data.sort && data.sort.by === key ? data.sort : null;
      // First ascending, then each click turns the order; a new order starts at the first page.
      const next = sorted && sorted.order === 'asc' ? 'desc' : 'asc';
      return h(
        'th',
        {
          scope: 'col',
          class: column.title === 'Attempts' ? 'num' : null,
          'aria-sort': sorted ? (sorted.order === 'desc' ? 'descending' : 'ascending') : key ? 'none' : null,
        },
        key
          ? h(
              'a',
              {
                class: 'sort',
                href: queueHref(data.queue.name, { ...table.kept, sort: key, order: next, search: table.search }),
                'data-sort': key,
                'data-focus': 'sort:' + key,
              },
              [column.title, h('span', { 'aria-hidden': 'true', text: sorted ? (sorted.order === 'desc' ? ' ▼' : ' ▲') : '' })],
            )
          : column.title,
      );
    }),
  ]);
  const parts: Child[] = [
    sortLine(data, table),
    bulkBar(data, table),
    h('div', { class: 'table-wrap' }, h('table', { class: 'cards jobs' }, [h('thead', null, head), h('tbody', null, rows)])),
  ];
  if (data.search) {
    const shown = count(data.jobs.length) + ' shown';
    parts.push(
      h('p', {
        class: 'muted',
        'data-search-result': data.more ? 'more' : 'all',
        text: data.more
          ? shown + ', more may match: narrow the search (a status tab, a job name or a group), or search a longer text.'
          : count(data.jobs.length) + ' match' + (data.jobs.length === 1 ? '' : 'es') + '.',
      }),
    );
  } else {
    const from = data.offset + 1;
    const to = data.offset + data.jobs.length;
    const name = data.queue.name;
    // Newest first, the pages are newer and older; in another order, earlier and later in it.
    const labels = data.sort ? ['← Previous', 'Next →'] : ['← Newer', 'Older →'];
    parts.push(
      h('nav', { class: 'pager', 'aria-label': 'Pages' }, [
        data.offset > 0
          ? h('a', {
              href: queueHref(name, { ...table.kept, offset: Math.max(0, data.offset - data.limit) || null }),
              text: labels[0],
              'data-focus': 'newer',
            })
          : null,
        h('span', { 'data-pager': true, text: pagerText(data, from, to) }),
        data.more
          ? h('a', {
              href: queueHref(name, { ...table.kept, offset: data.offset + data.limit }),
              text: labels[1],
              'data-focus': 'older',
            })
          : null,
      ]),
    );
  }
  return parts;
}
