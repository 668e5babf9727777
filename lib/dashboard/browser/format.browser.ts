// Formatting of counts, durations, dates and links.

function count(n: unknown): string {
  return typeof n === 'number' ? n.toLocaleString('en') : '–';
}

function ms(value: unknown): string {
  if (typeof value !== 'number') return '–';
  if (value < 1000) return Math.round(value) + ' ms';
  if (value < 60000) return (value / 1000).toFixed(value < 10000 ? 2 : 1) + ' s';
  return (value / 60000).toFixed(1) + ' min';
}

/** How far a date is from now: "in 5 min", "3 h ago"; "now" within half a second either way. */
function relative(date: Date): string {
  const diff = Math.round((date.getTime() - Date.now()) / 1000);
  // A time just past rounds to -0, which `>= 0` takes for the future ("in 0 s"): within the second it is now.
  if (diff === 0) return 'now';
  const abs = Math.abs(diff);
  const text =
    abs < 60
      ? abs + ' s'
      : abs < 3600
        ? Math.round(abs / 60) + ' min'
        : abs < 86400
          ? Math.round(abs / 3600) + ' h'
          : Math.round(abs / 86400) + ' d';
  return diff > 0 ? 'in ' + text : text + ' ago';
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A date with its distance from now; a dash for none, the text itself for what is not a date. */
function when(value: string | number | null | undefined): Child {
  if (value === null || value === undefined) return h('span', { class: 'muted', text: '–' });
  const date = new Date(value);
  if (isNaN(date.getTime())) return String(value);
  return h('time', { datetime: date.toISOString(), title: date.toISOString() }, date.toLocaleString() + ' (' + relative(date) + ')');
}

function json(value: unknown): HTMLPreElement {
  return h('pre', { tabindex: '0' }, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

function badge(status: string): HTMLSpanElement {
  return h('span', { class: 'badge ' + status, text: status });
}

/**
 * What a job is, for its badge: `claimed` for a running job no handler has yet (claimed ahead of a free slot by its
 * process, no start), else its status.
 */
function jobState(job: { status: string; startedAt: string | null }): string {
  return job.status === 'running' && !job.startedAt ? 'claimed' : job.status;
}

/** The status a count's link lists: jobs claimed ahead are listed with the running ones (their badge tells them apart). */
function listedStatus(status: string): string {
  return status === 'claimed' ? 'running' : status;
}

/** The hash route of a queue's page; empty, null and undefined parameters are left out. */
function queueHref(name: string, params?: Record<string, string | number | null | undefined>): string {
  const query = new URLSearchParams();
  const given = params || {};
  Object.keys(given).forEach((k) => {
    const value = given[k];
    if (value !== undefined && value !== '' && value !== null) query.set(k, String(value));
  });
  const q = query.toString();
  return '#/queue/' + encodeURIComponent(name) + (q ? '?' + q : '');
}

/**
 * A link to a queue's page for a table cell: a name of up to 128 characters without a space would widen its table past
 * the page, so a long one is cut with an ellipsis (the stylesheet's `a.queue-name`) and shown whole in its tooltip.
 */
function queueLink(name: string, attrs?: Attrs): HTMLAnchorElement {
  return h('a', { ...attrs, href: queueHref(name), class: 'queue-name', title: name, text: name });
}

function jobHref(id: string): string {
  return '#/job/' + encodeURIComponent(id);
}

/** The one label, on every page, of a queue whose processor runs in another process. */
const ELSEWHERE = 'processed by another process';

/** Who processes a queue, in the same words on the overview and the queue page. */
function processorLabel(q: WireQueue): Child {
  if (q.hasProcessor) return h('span', { 'data-processor': 'here', text: 'processor here, concurrency ' + q.concurrency });
  if (q.processed) return h('span', { 'data-processor': 'elsewhere', text: ELSEWHERE });
  return h('span', { class: 'badge none', 'data-processor': 'none', text: 'no processor' });
}

/**
 * A queue's limits in one line ("rate 10 per 1.00 s · per group 2 per 500 ms · group concurrency 1 · rate-limited,
 * opens in 3 s"), or null when none is set: a queue without limits shows no line.
 */
function limitsLabel(limits: WireQueueLimits | null | undefined): string | null {
  if (!limits) return null;
  const parts: string[] = [];
  if (limits.limiter) parts.push('rate ' + limits.limiter.max + ' per ' + ms(limits.limiter.duration));
  if (limits.groupLimiter) parts.push('per group ' + limits.groupLimiter.max + ' per ' + ms(limits.groupLimiter.duration));
  if (limits.groupConcurrency !== null) parts.push('group concurrency ' + limits.groupConcurrency);
  if (limits.globalConcurrency !== null) parts.push('global concurrency ' + limits.globalConcurrency);
  if (limits.limitedUntil) parts.push('rate-limited, opens ' + relative(new Date(limits.limitedUntil)));
  return parts.length ? 'Limits: ' + parts.join(' · ') : null;
}

/** A date in a table cell: its distance from now, the full date in its title (keeps the job table within 1280 px). */
function whenShort(value: string | null | undefined): Child {
  if (value === null || value === undefined) return h('span', { class: 'muted', text: '–' });
  const date = new Date(value);
  if (isNaN(date.getTime())) return String(value);
  return h('time', { datetime: date.toISOString(), title: date.toLocaleString() + ' · ' + date.toISOString() }, relative(date));
}

/** p50 and p95 of a duration, each in its legend's colour. */
function percentiles(p: WirePercentiles): Child {
  return h('span', { class: 'pcts' }, [h('span', { class: 'p50', text: ms(p.p50) }), ' / ', h('span', { class: 'p95', text: ms(p.p95) })]);
}

/** The legend of p50 / p95 figures. */
function percentileLegend(): HTMLElement {
  return h('div', { class: 'legend', 'data-legend': 'percentiles' }, [
    h('span', null, [h('span', { class: 'swatch p50' }), 'p50 (median)']),
    h('span', null, [h('span', { class: 'swatch p95' }), 'p95']),
  ]);
}
