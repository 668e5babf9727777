// Inspection on the dashboard: a job's explanation (QueueAdmin.explain), where a
// dead letter came from (JobInfo.deadLetter), and a dead-letter queue's "Redrive all". Declarations merge into the
// wire types of api-types.browser.ts (one global scope: the page script is compiled as one file).

/** `QueueAdmin.explain(id)` on the wire: `until` as an ISO string. */
interface WireExplanation {
  status: string;
  reason: string;
  until?: string;
  detail: string;
  owner?: string;
  childrenLeft?: number;
}

/** A dead-letter queue (`QueueAdmin.listDeadLetterQueues`). */
interface WireDeadLetterQueue {
  queue: string;
  sources: string[];
  count: number;
}

interface QueueData {
  /** What this queue is as a dead-letter queue; null when no processor names it (absent from an older server). */
  deadLetterQueue?: WireDeadLetterQueue | null;
}

/** A term and its description, for a `dl`. */
function term(name: string, value: Child, key: string): Child {
  return [h('dt', { text: name }), h('dd', { 'data-explain': key }, value)];
}

// The "Explain" panel of a job's page: why it is where it is, read again at each refresh of the page.
addJobPanel({
  name: 'explain',
  title: 'Explain',
  update(body, data) {
    return request<WireExplanation>(jobPath(data.job.id, 'explain')).then((why) => {
      fill(
        body,
        h('dl', { class: 'fields' }, [
          term('Status', badge(why.status), 'status'),
          term('Reason', h('code', { text: why.reason }), 'reason'),
          why.until ? term('Until', when(why.until), 'until') : null,
          term('Detail', why.detail, 'detail'),
        ]),
      );
    });
  },
});

// The "Dead letter" panel of a job's page: the failed job it stands for. Hidden on other jobs.
addJobPanel({
  name: 'dead-letter',
  title: 'Dead letter',
  update(body, data) {
    const origin = data.job.deadLetter as { queue: string; jobId: string; error: { name: string; message: string } | null } | null;
    const section = body.parentElement;
    if (section) section.hidden = !origin;
    if (!origin) return fill(body, null);
    fill(body, [
      h('p', {
        text: 'This job is a dead letter: the job below failed for good and was sent here. Redrive its queue to run it again there.',
      }),
      h('dl', { class: 'fields' }, [
        h('dt', { text: 'From queue' }),
        h('dd', { 'data-dead-letter': 'queue' }, h('a', { href: queueHref(origin.queue), text: origin.queue })),
        h('dt', { text: 'Failed job' }),
        h('dd', { 'data-dead-letter': 'job' }, h('a', { href: jobHref(origin.jobId), text: origin.jobId })),
        h('dt', { text: 'Its error' }),
        h(
          'dd',
          { class: 'wrap', 'data-dead-letter': 'error' },
          origin.error ? origin.error.name + ': ' + origin.error.message : h('span', { class: 'muted', text: '–' }),
        ),
      ]),
    ]);
  },
});

// The "Dead letters" panel of a queue's page: shown on a dead-letter queue, with "Redrive all" unless read-only.
addQueuePanel({
  name: 'dead-letters',
  title: 'Dead letters',
  update(body, data) {
    const dlq = data.deadLetterQueue || null;
    const section = body.parentElement;
    if (section) section.hidden = !dlq;
    if (!dlq) return fill(body, null);
    const path = queuePath(dlq.queue, 'redrive');
    fill(body, [
      h('p', { 'data-dead-letters': dlq.count }, [
        'A dead-letter queue of ',
        dlq.sources.map((source, i) => [i ? ', ' : '', h('a', { href: queueHref(source), text: source })]),
        ': ' + count(dlq.count) + ' dead letter(s) waiting.',
      ]),
      data.readOnly
        ? null
        : actionButton(
            'Redrive all',
            path,
            {},
            'Send the ' + count(dlq.count) + ' dead letter(s) of ' + dlq.queue + ' back to the queues they came from?',
            {
              disabled: dlq.count === 0 ? true : null,
            },
          ),
    ]);
  },
});
