// A job's page: its fields, progress, data, result and errors, and the actions its status allows.

/** The fields the page shows in their own places; any other field of the job is listed under "Other fields". */
const KNOWN = [
  'id',
  'queue',
  'name',
  'status',
  'data',
  'result',
  'error',
  'progress',
  'priority',
  'attempts',
  'maxAttempts',
  'key',
  'group',
  'lockedBy',
  'leaseUntil',
  'createdAt',
  'runAt',
  'startedAt',
  'finishedAt',
  'updatedAt',
];

function jobView(id: string): View {
  const body = h('div');
  return {
    title: 'Job ' + id,
    load: () => request<JobData>('jobs/' + encodeURIComponent(id)),
    mount: () => [body],
    update(data: JobData) {
      const job = data.job;
      const path = 'jobs/' + encodeURIComponent(job.id) + '/';
      const actions: HTMLButtonElement[] = [];
      if (!data.readOnly) {
        if (job.status === 'failed' || job.status === 'cancelled') actions.push(actionButton('Retry', path + 'retry'));
        if (job.status === 'pending' || job.status === 'running')
          actions.push(
            actionButton('Cancel', path + 'cancel', null, 'Cancel job ' + job.id + '? It will not run (again).', { class: 'danger' }),
          );
        if (job.status !== 'running')
          actions.push(
            actionButton('Remove', path + 'remove', null, 'Remove job ' + job.id + ' for good? This cannot be undone.', {
              class: 'danger',
            }),
          );
      }
      const fields: [string, Child][] = [
        ['Queue', h('a', { href: queueHref(job.queue), text: job.queue })],
        ['Name', typeof job.name === 'string' ? job.name : '–'],
        ['Status', badge(job.status)],
        ['Attempts', job.attempts + ' of ' + job.maxAttempts],
        ['Priority', String(job.priority)],
        ['Group', typeof job.group === 'string' ? job.group : '–'],
        ['Key', isHidden(data, 'key') ? h('span', { class: 'muted', text: 'hidden' }) : job.key === null ? '–' : job.key],
        ['Owner (worker)', job.lockedBy || '–'],
        ['Lease until', when(job.leaseUntil)],
        ['Created', when(job.createdAt)],
        ['Due', when(job.runAt)],
        ['Started', when(job.startedAt)],
        ['Finished', when(job.finishedAt)],
        ['Updated', when(job.updatedAt)],
      ];
      const other = Object.keys(job).filter((k) => KNOWN.indexOf(k) < 0);
      const sections: Child[] = [
        h('p', null, h('a', { href: queueHref(job.queue), text: '← Queue ' + job.queue })),
        h('h1', null, ['Job ' + job.id, badge(job.status)]),
        actions.length ? h('div', { class: 'toolbar' }, actions) : null,
        h(
          'dl',
          { class: 'fields' },
          fields.map((f) => [h('dt', { text: f[0] }), h('dd', null, f[1])]),
        ),
        h('h2', { text: 'Progress' }),
        isHidden(data, 'progress') ? hiddenNote() : progressOf(job.progress),
        h('h2', { text: 'Data' }),
        isHidden(data, 'data') ? hiddenNote() : json(job.data),
        h('h2', { text: 'Result' }),
        isHidden(data, 'result') ? hiddenNote() : job.result === null ? h('p', { class: 'muted', text: 'None.' }) : json(job.result),
        h('h2', { text: 'Error' }),
        errorsOf(job),
      ];
      if (other.length) {
        sections.push(h('h2', { text: 'Other fields' }));
        sections.push(
          h(
            'dl',
            { class: 'fields' },
            other.map((k) => [h('dt', { text: k }), h('dd', null, generic(job[k]))]),
          ),
        );
      }
      fill(body, sections);
    },
  };
}

/** Whether the server kept a field back (the redact option): 'hidden' lists them, on a job's page and on each listed job. */
function isHidden(holder: { hidden?: string[] }, field: string): boolean {
  return Array.isArray(holder.hidden) && holder.hidden.indexOf(field) >= 0;
}

function hiddenNote(): HTMLParagraphElement {
  return h('p', { class: 'muted', text: "Hidden by the dashboard's redact option." });
}

/** A field the page does not know: a date when it reads as one, JSON for an object, text otherwise. */
function generic(value: unknown): Child {
  if (value === null || value === undefined) return h('span', { class: 'muted', text: '–' });
  if (typeof value === 'string' && ISO.test(value)) return when(value);
  if (typeof value === 'object') return json(value);
  return String(value);
}

function progressOf(progress: unknown): Child {
  if (progress === null || progress === undefined) return h('p', { class: 'muted', text: 'None reported.' });
  if (typeof progress === 'number')
    return h('p', null, [h('progress', { max: '100', value: String(progress), 'aria-label': 'Progress' }), ' ' + progress + ' %']);
  return json(progress);
}

function errorsOf(job: WireJob): Child {
  // The last attempt's error first, then the earlier attempts' it carries (newest first).
  const list = job.error ? [job.error].concat(Array.isArray(job.error.previous) ? job.error.previous : []) : [];
  if (!list.length) return h('p', { class: 'muted', text: 'No failed attempt.' });
  return list.map((error) =>
    h('div', { class: 'error-box' }, [
      h('h3', { text: 'Attempt ' + (error.attempt || '?') + ': ' + error.name }),
      h('p', { 'data-error-message': '' }, error.message),
      error.code !== undefined ? h('p', { class: 'muted', text: 'code ' + error.code }) : null,
      error.stack ? h('details', { open: error === list[0] ? true : null }, [h('summary', { text: 'Stack' }), json(error.stack)]) : null,
    ]),
  );
}
