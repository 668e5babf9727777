// The recurring jobs: their definition, last and next run, and run now / pause / resume / delete.

function schedulesView(): View {
  const body = h('div');
  return {
    title: 'Schedules',
    load: () => request<SchedulesData>('schedules'),
    mount: () => [h('h1', { text: 'Recurring jobs' }), body],
    update(data: SchedulesData) {
      if (!data.schedules.length) {
        fill(body, h('p', { text: 'No recurring job.' }));
        return;
      }
      const titles = ['Queue', 'Name', 'Every / cron', 'Time zone', 'State', 'Last run', 'Next run', 'Data'];
      const head = h(
        'tr',
        null,
        titles.concat(data.readOnly ? [] : ['Actions']).map((t) => h('th', { scope: 'col', text: t })),
      );
      const rows = data.schedules.map((sc) => {
        const label = sc.name + ' of ' + sc.queue;
        const run = sc.lastRun;
        return h('tr', { 'data-schedule': sc.queue + '/' + sc.name }, [
          h('td', { 'data-label': 'Queue' }, h('a', { href: queueHref(sc.queue), text: sc.queue })),
          h('td', { class: 'wrap', 'data-label': 'Name', text: sc.name }),
          h('td', { 'data-label': 'Every / cron', text: sc.cron !== null ? sc.cron : 'every ' + ms(sc.every) }),
          h('td', { 'data-label': 'Time zone', text: sc.timezone || 'process default' }),
          h('td', { 'data-label': 'State' }, sc.paused ? badge('paused') : badge('active')),
          h(
            'td',
            { 'data-label': 'Last run', 'data-last-run': run ? run.id : '' },
            run
              ? [h('a', { href: jobHref(run.id), text: 'job ' + run.id }), ' ', badge(run.status), ' ', whenShort(run.createdAt)]
              : h('span', { class: 'muted', text: 'never' }),
          ),
          h('td', { 'data-label': 'Next run' }, sc.paused ? h('span', { class: 'muted', text: 'paused' }) : when(sc.nextRunAt)),
          h(
            'td',
            { class: 'wrap', 'data-label': 'Data' },
            // Three lines of it at most, the whole in the tooltip: a large payload would make the row pages high.
            sc.dataHidden
              ? h('span', { class: 'muted', text: 'hidden' })
              : h('span', { class: 'clamp', title: JSON.stringify(sc.data), text: JSON.stringify(sc.data) }),
          ),
          data.readOnly
            ? null
            : h('td', { class: 'actions', 'data-label': 'Actions' }, [
                actionButton('Run now', schedulePath(sc.queue, sc.name, 'run'), null, null, { 'aria-label': 'Run ' + label + ' now' }),
                sc.paused
                  ? actionButton('Resume', schedulePath(sc.queue, sc.name, 'resume'), null, null, { 'aria-label': 'Resume ' + label })
                  : actionButton('Pause', schedulePath(sc.queue, sc.name, 'pause'), null, null, { 'aria-label': 'Pause ' + label }),
                actionButton(
                  'Delete',
                  schedulePath(sc.queue, sc.name, 'delete'),
                  null,
                  'Delete the schedule ' + label + '? The jobs it already enqueued stay. An app that declares it at boot adds it again.',
                  { class: 'danger', 'aria-label': 'Delete ' + label },
                ),
              ]),
        ]);
      });
      fill(body, h('div', { class: 'table-wrap' }, h('table', { class: 'cards' }, [h('thead', null, head), h('tbody', null, rows)])));
    },
  };
}
