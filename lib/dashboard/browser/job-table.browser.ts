// The jobs table of a queue's page (queue-view.browser.ts): its columns and sort links, the selection and its bulk
// actions, the pager, and what a search found.

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
 * A page past the list's end (an old link, a hand-typed offset): not "no job here", which the tab's count would
 * contradict, but where the list ends, with the way to its first page and, when the count is known, its last.
 */
function pastTheEnd(data: QueueData, table: JobTableState): Child {
  const name = data.queue.name;
  const last = data.total ? Math.floor((data.total - 1) / data.limit) * data.limit : null;
  return h('nav', { class: 'pager', 'aria-label': 'Pages' }, [
    h('span', {
      'data-pager': true,
      text: pagerText(data, data.offset + 1, data.offset) + (data.total !== null ? ': this list holds ' + count(data.total) + '.' : '.'),
    }),
    h('a', { href: queueHref(name, { ...table.kept, offset: null }), text: 'First page', 'data-focus': 'first' }),
    last ? h('a', { href: queueHref(name, { ...table.kept, offset: last }), text: 'Last page', 'data-focus': 'last' }) : null,
  ]);
}

/**
 * The jobs of the page, and the pager. A search is one page of its first matches, not paged: a line says how many it
 * shows and, when it found more than a page, that more may match (a narrower search finds them).
 */
function jobsTable(data: QueueData, table: JobTableState): Child {
  if (!data.jobs.length && !data.search && data.offset > 0) return pastTheEnd(data, table);
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
      h('td', { 'data-label': 'Status' }, badge(jobState(job))),
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
