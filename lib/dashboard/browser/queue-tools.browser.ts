// A queue's actions on its page: pause or resume, retry the failed jobs, clean finished jobs (queue-view.browser.ts).

/** A queue's actions: pause or resume, retry the failed jobs, clean finished jobs. */
function queueTools(q: WireQueue): Child {
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
          queuePath(q.name, 'clean'),
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
    q.paused ? actionButton('Resume queue', queuePath(q.name, 'resume')) : actionButton('Pause queue', queuePath(q.name, 'pause')),
    actionButton('Retry all failed', queuePath(q.name, 'retry-failed'), null, null, { disabled: q.counts.failed === 0 ? true : null }),
    cleanForm(q.name, form),
  ];
}

// The clean form keeps what the operator typed across refreshes: the first one built for a queue is reused.
// A Map, not an object: a queue may be named constructor or __proto__.
const cleanForms = new Map<string, HTMLFormElement>();
function cleanForm(name: string, form: HTMLFormElement): HTMLFormElement {
  const kept = cleanForms.get(name);
  if (kept) return kept;
  cleanForms.set(name, form);
  return form;
}
