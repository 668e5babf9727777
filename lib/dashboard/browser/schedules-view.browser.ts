// The recurring jobs.

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
      const head = h(
        'tr',
        null,
        ['Queue', 'Name', 'Every / cron', 'Time zone', 'Next run', 'Data'].map((t) => h('th', { scope: 'col', text: t })),
      );
      const rows = data.schedules.map((sc) =>
        h('tr', { 'data-schedule': sc.queue + '/' + sc.name }, [
          h('td', null, h('a', { href: queueHref(sc.queue), text: sc.queue })),
          h('td', { text: sc.name }),
          h('td', { text: sc.cron !== null ? sc.cron : 'every ' + ms(sc.every) }),
          h('td', { text: sc.timezone || 'process default' }),
          h('td', null, when(sc.nextRunAt)),
          h('td', { class: 'wrap' }, sc.dataHidden ? h('span', { class: 'muted', text: 'hidden' }) : JSON.stringify(sc.data)),
        ]),
      );
      fill(body, h('div', { class: 'table-wrap' }, h('table', null, [h('thead', null, head), h('tbody', null, rows)])));
    },
  };
}
