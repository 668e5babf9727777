// Routing by the URL hash, and polling of the JSON API while the tab is visible. Last of the files: its end starts
// the page, once everything above is defined.

const main = byId('main');
const live = byId('live');

const state: {
  readOnly: boolean;
  /** Milliseconds between polls (the server's refreshInterval). */
  refresh: number;
  timer: number | undefined;
  /** The page shown; null until the first show(). */
  view: View | null;
  /** Bumped on every navigation: an answer for an earlier page is dropped. */
  token: number;
  /** Bumped on every read; the newest applied: an answer older than one already shown is dropped. */
  seq: number;
  applied: number;
  /** Whether a navigation has happened: from then on a new page takes keyboard focus (the first load does not). */
  focusMain: boolean;
  chartMinutes: number;
  /** The statuses in the order the columns show them: the keys of the server's counts, once it has answered. */
  statuses: string[];
} = {
  readOnly: true,
  refresh: 2000,
  timer: undefined,
  view: null,
  token: 0,
  seq: 0,
  applied: 0,
  focusMain: false,
  chartMinutes: 60,
  statuses: ['pending', 'running', 'completed', 'failed', 'cancelled'],
};

/** A path segment of the hash as typed; one that is not valid percent-encoding (`%`, `%zz`) is taken as it is. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function route(): View {
  const hash = location.hash.replace(/^#/, '') || '/';
  const qIndex = hash.indexOf('?');
  const path = qIndex >= 0 ? hash.slice(0, qIndex) : hash;
  const params = new URLSearchParams(qIndex >= 0 ? hash.slice(qIndex + 1) : '');
  const parts = path.split('/').filter(Boolean).map(decodePart);
  if (parts[0] === 'queue' && parts[1]) return queueView(parts[1], params);
  if (parts[0] === 'job' && parts[1]) return jobView(parts[1]);
  if (parts[0] === 'schedules') return schedulesView();
  if (parts[0] === 'processes') return processesView();
  return overviewView();
}

function show(): void {
  const view = route();
  state.view = view;
  state.token++;
  document.title = view.title + ' · Queues';
  fill(main, view.mount());
  refresh(true);
}

/**
 * A poll's answer waits while a pointer is pressed in the page: refilling the view between the press and the release
 * replaces the button under it, and the browser then sends the click to no button at all (a lost "Retry", "Run now").
 * The newest held answer is applied once the click has gone out.
 */
let pressed = false;
let held: (() => void) | null = null;
main.addEventListener('pointerdown', () => {
  pressed = true;
});
function release(): void {
  if (!pressed) return;
  pressed = false;
  // After the click that follows this release has been dispatched.
  setTimeout(() => {
    const apply = held;
    held = null;
    main.removeAttribute('data-update-held');
    if (apply && !pressed) apply();
    else if (apply) held = apply;
  });
}
document.addEventListener('pointerup', release, true);
document.addEventListener('pointercancel', release, true);

/** Runs a poll's update now, or once the pointer pressed in the page is released. */
function whenReleased(apply: () => void): void {
  if (!pressed) return apply();
  held = apply;
  main.setAttribute('data-update-held', '');
}

function refresh(focus?: boolean): Promise<void> {
  const view = state.view;
  const token = state.token;
  const seq = ++state.seq;
  clearTimeout(state.timer);
  if (!view) return Promise.resolve();
  const apply = (data: Awaited<ReturnType<typeof view.load>>): void => {
    if (token !== state.token || seq < state.applied) return;
    state.applied = seq;
    // The page said "no such queue" and the queue has appeared since: its own page again.
    if (view.gone) {
      view.gone = false;
      fill(main, view.mount());
    }
    if (typeof data.readOnly === 'boolean') state.readOnly = data.readOnly;
    // The statuses come from the server's counts, so a status a later version adds shows without a change here.
    const counts = (data.queue && data.queue.counts) || (data.queues && data.queues[0] && data.queues[0].counts);
    if (counts) state.statuses = Object.keys(counts);
    if (data.refreshInterval) state.refresh = data.refreshInterval;
    if (data.chartMinutes) state.chartMinutes = data.chartMinutes;
    view.update(data);
    live.textContent = 'Updated ' + new Date().toLocaleTimeString() + (state.readOnly ? ' · read-only' : '');
    if (focus === true && state.focusMain) main.focus();
  };
  return view
    .load()
    .then((data) => whenReleased(() => apply(data)))
    .catch((error: unknown) => {
      if (token !== state.token || seq < state.applied) return;
      const message = messageOf(error);
      if (error instanceof HttpError && error.status === 404 && view.missing) {
        if (!view.gone) fill(main, view.missing(message));
        view.gone = true;
        live.textContent = message;
        return;
      }
      live.textContent = 'Could not refresh: ' + message;
      if (focus === true) main.insertBefore(h('p', { role: 'alert', class: 'status-line error', text: message }), main.firstChild);
    })
    .then(() => {
      // Only the newest read schedules the next poll: an action's read and a poll in flight make one timer, not two.
      if (token === state.token && seq === state.seq) state.timer = setTimeout(tick, state.refresh);
    });
}

function tick(): void {
  if (!document.hidden) refresh();
  else state.timer = setTimeout(tick, state.refresh);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refresh();
});
window.addEventListener('hashchange', () => {
  state.focusMain = true;
  say('');
  statusLine.className = 'status-line';
  show();
});
show();
