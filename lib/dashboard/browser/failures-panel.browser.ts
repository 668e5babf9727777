// Failures grouped by error on a queue's page: QueueAdmin.getFailureGroups, each group linking to
// the failed jobs whose text holds its message. Declarations merge into the wire types of api-types.browser.ts.

/** One group of failed jobs sharing an error (`QueueAdmin.getFailureGroups`): `lastFailedAt` as an ISO string. */
interface WireFailureGroup {
  name: string;
  message: string;
  count: number;
  lastFailedAt: string;
  sampleJobId: string;
}

interface QueueData {
  /** The queue's recent failures grouped by error, most first (absent from an older server). */
  failureGroups?: WireFailureGroup[];
  /** Whether a search looks in jobs' text (not while a `redact.data` rule hides data); absent: it does. */
  textSearch?: boolean;
}

/** The longest search a link may carry (QueueAdmin's MAX_SEARCH_LENGTH). */
const FAILURE_SEARCH_LENGTH = 200;

/**
 * The text that finds a message in the stored error: its head up to the first character JSON escapes (a quote, a
 * backslash, a control character), since the search reads the stored JSON; empty when nothing is left to look for.
 */
function failureSearch(message: string): string {
  let end = 0;
  while (end < message.length && end < FAILURE_SEARCH_LENGTH) {
    const code = message.charCodeAt(end);
    if (code < 0x20 || message[end] === '"' || message[end] === '\\') break;
    end++;
  }
  return message.slice(0, end).trim();
}

// The "Failures by error" panel, hidden while the queue has no failed job.
addQueuePanel({
  name: 'failures',
  title: 'Failures by error',
  update(body, data) {
    const groups = data.failureGroups || [];
    const section = body.parentElement;
    if (section) section.hidden = groups.length === 0;
    if (!groups.length) return fill(body, null);
    const name = data.queue.name;
    const searchable = data.textSearch !== false;
    // An error shows three lines, as in the job table, the rest in its tooltip: one of 3,000 characters filled screens.
    const rows = groups.map((g) => {
      const text = failureSearch(g.message);
      const label = g.name + ': ' + g.message;
      return h('tr', { 'data-failure-group': g.sampleJobId }, [
        h(
          'td',
          { class: 'wrap error', 'data-label': 'Error' },
          searchable && text
            ? h('a', { href: queueHref(name, { status: 'failed', search: text }), title: label, text: label, class: 'clamp' })
            : h('span', { title: label, text: label, class: 'clamp' }),
        ),
        h('td', { class: 'num', 'data-label': 'Jobs', text: count(g.count) }),
        h('td', { 'data-label': 'Last failed' }, whenShort(g.lastFailedAt)),
        h('td', { 'data-label': 'Newest' }, h('a', { href: jobHref(g.sampleJobId), text: g.sampleJobId })),
      ]);
    });
    const head = h('tr', null, [
      h('th', { scope: 'col', text: 'Error' }),
      h('th', { scope: 'col', class: 'num', text: 'Jobs' }),
      h('th', { scope: 'col', text: 'Last failed' }),
      h('th', { scope: 'col', text: 'Newest job' }),
    ]);
    fill(body, [
      h('p', {
        class: 'muted',
        text: 'Among the newest 1,000 failed jobs of this queue. An error links to the failed jobs holding its message.',
      }),
      h('div', { class: 'table-wrap' }, h('table', { class: 'cards' }, [h('thead', null, head), h('tbody', null, rows)])),
    ]);
  },
});
