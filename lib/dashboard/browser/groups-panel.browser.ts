// Job groups on the dashboard: a queue's busiest groups, and a job's group. Declarations merge
// into the wire types of api-types.browser.ts (one global scope: the page script is compiled as one file).

/** One group of a queue with its load (`QueueAdmin.getGroups`). */
interface WireGroup {
  group: string;
  running: number;
  pending: number;
}

interface QueueData {
  /** The queue's groups with the most running jobs (absent from a server without groups). */
  groups?: WireGroup[];
  /** The group the jobs are filtered by, or null (absent from an older server). */
  group?: string | null;
}

interface WireJobSummary {
  group?: string | null;
}

/** The jobs table's Group column (job-table.browser.ts shows it when the page's jobs carry groups). */
const GROUP_COLUMN: { title: string; key: null; label: string } = { title: 'Group', key: null, label: 'Group' };

// The "Busiest groups" panel of a queue's page (panels.browser.ts), hidden for a queue whose jobs run without groups.
addQueuePanel({
  name: 'groups',
  title: 'Busiest groups',
  update(body, data) {
    const section = body.parentElement;
    const table = groupsTable(data);
    if (section) section.hidden = table === null;
    fill(body, table);
  },
});

/** The busiest groups of a queue as a table, or null when its jobs run without groups. */
function groupsTable(data: QueueData): Child {
  const groups = data.groups || [];
  if (!groups.length) return null;
  const rows = groups.map((g) =>
    h('tr', null, [
      h(
        'td',
        { class: 'wrap', 'data-label': 'Group' },
        h('a', { href: queueHref(data.queue.name, { ...pageFilters(data), group: g.group }), 'data-group': g.group, text: g.group }),
      ),
      h('td', { class: 'num', 'data-label': 'Running', text: count(g.running) }),
      h('td', { class: 'num', 'data-label': 'Pending', text: g.pending >= 10000 ? '10,000+' : count(g.pending) }),
    ]),
  );
  const head = h('tr', null, [
    h('th', { scope: 'col', text: 'Group' }),
    h('th', { scope: 'col', class: 'num', text: 'Running' }),
    h('th', { scope: 'col', class: 'num', text: 'Pending' }),
  ]);
  return h(
    'div',
    { class: 'table-wrap', 'data-groups': '' },
    h('table', { class: 'cards' }, [h('thead', null, head), h('tbody', null, rows)]),
  );
}

/** Whether the page's jobs carry groups: the jobs table then has a Group column. */
function jobsHaveGroups(data: QueueData): boolean {
  return data.jobs.some((job) => typeof job.group === 'string');
}

/**
 * A job's group in the jobs table: a link to the queue's jobs of that group (the filter the Busiest groups panel
 * applies, reachable from any group, not only the five busiest), keeping the page's status, name and order.
 */
function groupCell(data: QueueData, job: WireJobSummary): Child {
  if (typeof job.group !== 'string') return '';
  if (data.group === job.group) return job.group;
  return h('a', {
    href: queueHref(data.queue.name, { ...pageFilters(data), group: job.group }),
    'data-group-link': job.group,
    title: 'Only the jobs of group ' + job.group,
    text: job.group,
  });
}

/** The group filter's line above the jobs: which group is shown, and the way back to every job. */
function groupFilterLine(data: QueueData): Child {
  if (!data.group) return null;
  return h('p', { class: 'muted', 'data-group-filter': data.group }, [
    'Jobs of group ',
    h('strong', { text: data.group }),
    ' · ',
    h('a', { href: queueHref(data.queue.name, { ...pageFilters(data), group: '', search: data.search }), text: 'All groups' }),
  ]);
}

/** The page's status, name and order, which a group link keeps (a group changes the list, not how it is read). */
function pageFilters(data: QueueData): Record<string, string> {
  const sort = data.sort;
  return { status: data.status || '', name: data.name || '', sort: sort ? sort.by : '', order: sort ? sort.order : '' };
}
