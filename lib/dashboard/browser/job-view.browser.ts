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
  'flow',
  // Shown by the Dead letter panel (inspect-panels.browser.ts).
  'deadLetter',
  // Shown by the Attempts panel (attempts-panel.browser.ts).
  'runs',
];

function jobView(id: string): View {
  const body = h('div');
  const panels = mountPanels(jobPanels, 'job-panels');
  // Whether this page showed the job: only then did it exist and go away; an old link or a typed id may never have
  // named one, and "no longer exists" would tell the operator something that did not happen.
  let shown = false;
  return {
    title: 'Job ' + id,
    load: () => request<JobData>(jobPath(id)),
    mount: () => [body, panels.element],
    // Removed (here, by another tab, by retention): say so at once instead of keeping the old state on screen.
    missing: (message) => [
      h('p', null, h('a', { href: '#/', text: '← All queues' })),
      h('h1', { text: 'Job ' + id + (shown ? ' no longer exists' : ' not found') }),
      h('p', { 'data-missing': '', text: message }),
    ],
    update(data: JobData) {
      shown = true;
      const job = data.job;
      const actions: HTMLButtonElement[] = [];
      const waiting = !!job.flow && (job.flow as { waitingForChildren?: boolean }).waitingForChildren === true;
      const delayed = job.status === 'pending' && !waiting && Date.parse(job.runAt) > Date.now();
      if (!data.readOnly) {
        if (job.status === 'failed' || job.status === 'cancelled') actions.push(actionButton('Retry', jobPath(job.id, 'retry')));
        if (delayed) actions.push(actionButton('Run now', jobPath(job.id, 'promote')));
        if (job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled')
          actions.push(
            h(
              'button',
              {
                type: 'button',
                'data-focus': 'rerun',
                onclick: () =>
                  void act<ActionAnswer & { jobId?: string }>(
                    jobPath(job.id, 'rerun'),
                    null,
                    'Add a new job to ' + job.queue + ' with the data and name of job ' + job.id + '?',
                  ).then((answer) => {
                    if (!answer || !answer.jobId) return;
                    // The new job's page, where the operator sees it run; the answer is said again once there (a
                    // navigation clears the status line).
                    window.addEventListener('hashchange', () => say(answer.message), { once: true });
                    location.hash = jobHref(answer.jobId);
                  }),
              },
              'Run again as a new job',
            ),
          );
        if (job.status === 'pending' || job.status === 'running')
          actions.push(
            actionButton('Cancel', jobPath(job.id, 'cancel'), null, 'Cancel job ' + job.id + '? It will not run (again).', {
              class: 'danger',
            }),
          );
        if (job.status !== 'running')
          actions.push(
            actionButton('Remove', jobPath(job.id, 'remove'), null, 'Remove job ' + job.id + ' for good? This cannot be undone.', {
              class: 'danger',
            }),
          );
      }
      const fields: [string, Child][] = [
        ['Queue', h('a', { href: queueHref(job.queue), text: job.queue })],
        ['Name', typeof job.name === 'string' ? job.name : '–'],
        ['Status', badge(jobState(job))],
        ['Attempts', job.attempts + ' of ' + job.maxAttempts],
        ['Priority', String(job.priority)],
        ['Group', typeof job.group === 'string' ? job.group : '–'],
        ['Key', isHidden(data, 'key') ? h('span', { class: 'muted', text: 'hidden' }) : job.key === null ? '–' : job.key],
        ['Owner (worker)', job.lockedBy || '–'],
        ['Lease until', when(job.leaseUntil)],
        ['Created', when(job.createdAt)],
        ['Due', when(job.runAt)],
        [
          'Started',
          jobState(job) === 'claimed'
            ? h('span', { class: 'muted', text: 'not yet: claimed ahead by its process, waiting there for a free slot' })
            : when(job.startedAt),
        ],
        ['Finished', when(job.finishedAt)],
        ['Updated', when(job.updatedAt)],
      ];
      const other = Object.keys(job).filter((k) => KNOWN.indexOf(k) < 0);
      const sections: Child[] = [
        h('p', null, h('a', { href: queueHref(job.queue), text: '← Queue ' + job.queue })),
        h('h1', null, ['Job ' + job.id, badge(jobState(job))]),
        actions.length ? h('div', { class: 'toolbar' }, actions) : null,
        section('fields', null, [
          h(
            'dl',
            { class: 'fields' },
            fields.map((f) => [h('dt', { text: f[0] }), h('dd', null, f[1])]),
          ),
        ]),
        data.flow ? section('flow', 'Flow', flowTree(job, data.flow)) : null,
        data.dependencies ? section('dependencies', 'Dependencies', dependencyGraph(data.dependencies)) : null,
        section('progress', 'Progress', isHidden(data, 'progress') ? hiddenNote() : progressOf(job.progress)),
        section('data', 'Data', isHidden(data, 'data') ? hiddenNote() : json(job.data)),
        section(
          'result',
          'Result',
          isHidden(data, 'result') ? hiddenNote() : job.result === null ? h('p', { class: 'muted', text: 'None.' }) : json(job.result),
        ),
        section('logs', 'Logs', logsOf(data.logs)),
        errorsSection(job),
      ];
      if (other.length) {
        sections.push(
          section('other', 'Other fields', [
            h(
              'dl',
              { class: 'fields' },
              other.map((k) => [h('dt', { text: k }), h('dd', null, generic(job[k]))]),
            ),
          ]),
        );
      }
      fill(body, sections);
      panels.update(data);
    },
  };
}

/** A built-in part of the job page, in a container of its own (data-panel names it, as for added panels). */
function section(name: string, title: string | null, content: Child): HTMLElement {
  return h('section', { class: 'panel', 'data-panel': name }, [title ? h('h2', { text: title }) : null, content]);
}

/** The job's lines of job.log(), oldest first, numbered. */
function logsOf(logs: string[] | null): Child {
  if (logs === null) return h('p', { class: 'muted', text: "Hidden by the dashboard's redact option (a data rule hides the log too)." });
  if (!logs.length) return h('p', { class: 'muted', text: 'No log line.' });
  return h(
    'ol',
    { class: 'logs', tabindex: '0', 'aria-label': 'Log lines, oldest first' },
    logs.map((line) => h('li', { text: line })),
  );
}

/** The flow around the job: its parent, itself, its children, each with its status and a link. */
function flowTree(job: WireJob, flow: NonNullable<JobData['flow']>): Child {
  const item = (node: WireFlowNode, self: boolean, children?: Child) =>
    h('li', { 'data-flow-job': node.id }, [
      self ? h('strong', { text: 'Job ' + node.id + ' (this job)' }) : h('a', { href: jobHref(node.id), text: 'Job ' + node.id }),
      ' ',
      badge(node.status),
      ' ',
      h('span', { class: 'muted', text: node.queue + (node.name ? ' · ' + node.name : '') }),
      children || null,
    ]);
  const kids = flow.children.length
    ? h('ul', null, [
        flow.children.map((child) => item(child, false)),
        flow.moreChildren > 0 ? h('li', { class: 'muted', text: 'and ' + flow.moreChildren + ' more' }) : null,
      ])
    : null;
  const self = item({ id: job.id, queue: job.queue, name: typeof job.name === 'string' ? job.name : null, status: job.status }, true, kids);
  const info = job.flow as { waitingForChildren?: boolean; pendingChildren?: number } | undefined;
  return [
    h('ul', { class: 'tree' }, flow.parent ? item(flow.parent, false, h('ul', null, self)) : self),
    info && info.waitingForChildren
      ? h('p', { class: 'muted', text: 'Waiting for ' + info.pendingChildren + ' child job(s) before it runs.' })
      : null,
  ];
}

/**
 * The graph around the job: the jobs it waits for, then the jobs that wait for it, each with its status and a link
 * (a removed one without), and how many more there are beyond the page's share.
 */
function dependencyGraph(graph: NonNullable<JobData['dependencies']>): Child {
  const item = (node: WireLinkedJob) =>
    h('li', { 'data-linked-job': node.id }, [
      node.queue === null ? h('span', { text: 'Job ' + node.id }) : h('a', { href: jobHref(node.id), text: 'Job ' + node.id }),
      ' ',
      badge(node.status),
      node.queue === null ? null : [' ', h('span', { class: 'muted', text: node.queue + (node.name ? ' · ' + node.name : '') })],
    ]);
  const side = (name: string, title: string, nodes: WireLinkedJob[], total: number) =>
    total === 0
      ? null
      : h('div', { 'data-links': name }, [
          h('h3', { text: title + ' (' + total + ')' }),
          h('ul', null, [
            nodes.map(item),
            total > nodes.length ? h('li', { class: 'muted', text: 'and ' + (total - nodes.length) + ' more' }) : null,
          ]),
        ]);
  const live = graph.dependencies.filter((node) => node.status === 'pending' || node.status === 'running').length;
  return [
    side('dependencies', 'Waits for', graph.dependencies, graph.dependencyCount),
    live > 0 ? h('p', { class: 'muted', text: live + ' of the jobs shown still pending or running.' }) : null,
    side('dependents', 'Needed by', graph.dependents, graph.dependentCount),
  ];
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

/**
 * The attempts' errors, newest first. On a failed (or cancelled) job the newest is its last error; on a job that
 * completed, or is still going, they are history: earlier attempts that failed before the one that counts.
 */
function errorsSection(job: WireJob): HTMLElement {
  const list = job.error ? [job.error].concat(Array.isArray(job.error.previous) ? job.error.previous : []) : [];
  const final = job.status === 'failed' || job.status === 'cancelled';
  const title = !list.length || final ? 'Error' : 'Earlier attempts';
  if (!list.length) return section('errors', title, h('p', { class: 'muted', text: 'No failed attempt.' }));
  const note = final
    ? null
    : h('p', {
        class: 'muted',
        'data-error-history': '',
        text:
          job.status === 'completed'
            ? 'The job completed on attempt ' + job.attempts + '; these earlier attempts failed before it.'
            : 'These attempts failed; the job is ' +
              job.status +
              ' for attempt ' +
              (job.attempts + (job.status === 'pending' ? 1 : 0)) +
              '.',
      });
  return section('errors', title, [
    note,
    list.map((error, i) =>
      h('div', { class: 'error-box' + (final && i === 0 ? '' : ' history') }, [
        h('h3', { text: 'Attempt ' + (error.attempt || '?') + ': ' + error.name }),
        h('p', { 'data-error-message': '' }, error.message),
        error.code !== undefined ? h('p', { class: 'muted', text: 'code ' + error.code }) : null,
        error.stack ? h('details', { open: final && i === 0 ? true : null }, [h('summary', { text: 'Stack' }), json(error.stack)]) : null,
      ]),
    ),
  ]);
}
