// Talking to the server: JSON reads of the API, and actions as same-origin JSON POSTs.

/** The path the page was reached at (the page shell writes it), so a global prefix or a proxy path is honoured. */
const BASE = document.documentElement.getAttribute('data-base') || '';
const statusLine = byId('action-status');

/** An answer that was not 2xx, with its status (404 tells the queue page the queue does not exist). */
class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The text of whatever a promise was rejected with. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** GETs (or, with options, POSTs) api/<path>; resolves with the parsed body, rejects with an HttpError when not ok. */
function request<T>(path: string, options?: RequestInit): Promise<T> {
  const init: RequestInit = Object.assign({ credentials: 'same-origin', headers: { accept: 'application/json' } }, options || {});
  return fetch(BASE + '/api/' + path, init).then((response) =>
    response.text().then((text) => {
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = { message: text };
      }
      if (!response.ok) {
        const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
        throw new HttpError((message ? String(message) : '') || 'HTTP ' + response.status, response.status);
      }
      return body as T;
    }),
  );
}

/**
 * The API path of a queue (its page's data, or with an action that action's POST). The name goes in the query, not a
 * path segment: Fastify, by default, refuses a path segment over 100 characters before the dashboard sees it, where a
 * queue name may be 128 (the server still answers the older path forms). `query` adds further parameters.
 */
function queuePath(name: string, action?: string, query?: Record<string, string>): string {
  return 'queue' + (action ? '/' + action : '') + '?' + new URLSearchParams(Object.assign({ queue: name }, query || {})).toString();
}

/** The API path of a job (its data, `explain`, or an action's POST), its id in the query as a queue's name is. */
function jobPath(id: string, action?: string): string {
  return 'job' + (action ? '/' + action : '') + '?' + new URLSearchParams({ id: id }).toString();
}

/** The API path of a recurring job's action, its queue and name in the query as a queue's name is. */
function schedulePath(queue: string, name: string, action: string): string {
  return 'schedule/' + action + '?' + new URLSearchParams({ queue: queue, name: name }).toString();
}

/** Says what an action did (status) or why it failed (alert) in the line under the header. */
function say(message: string, isError?: boolean): void {
  statusLine.className = 'status-line' + (isError ? ' error' : '');
  statusLine.setAttribute('role', isError ? 'alert' : 'status');
  statusLine.textContent = message;
}

/** The actions sent and not yet answered and shown (their path and body). */
const inFlight = new Set<string>();

/**
 * Sends an action after confirmation where it destroys something; says what happened; then reads the page again at
 * once, so the page shows the action's effect without waiting for the next poll (and a poll answer read before the
 * action, arriving after it, is dropped: see refresh). Resolves with the answer, or null when nothing was done.
 */
function act<T extends ActionAnswer = ActionAnswer>(path: string, body?: unknown, confirmText?: string | null): Promise<T | null> {
  // A second click on the same action while the first is on its way (a double click, an impatient one) sends
  // nothing: it would be refused (a retried job is no longer failed) and its error would hide the first one's answer.
  const key = path + ' ' + JSON.stringify(body || {});
  if (inFlight.has(key)) return Promise.resolve(null);
  if (confirmText && !window.confirm(confirmText)) {
    say('Nothing done.');
    return Promise.resolve(null);
  }
  inFlight.add(key);
  return request<T>(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body || {}),
  })
    .then((answer) => {
      say(answer.message);
      return answer;
    })
    .catch((error: unknown) => {
      say(messageOf(error), true);
      return null;
    })
    .then((answer) => refresh().then(() => answer))
    .finally(() => inFlight.delete(key));
}

function actionButton(label: string, path: string, body?: unknown, confirmText?: string | null, extra?: Attrs): HTMLButtonElement {
  const attrs: Attrs = { type: 'button', 'data-focus': label + path, onclick: () => void act(path, body, confirmText) };
  return h('button', Object.assign(attrs, extra || {}), label);
}
