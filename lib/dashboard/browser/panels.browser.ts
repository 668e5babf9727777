// Hook points for panels other files add to the job page and the queue page (an explain panel, an attempt timeline,
// a job's group, dead letters...). A file listed after this one in tsconfig.json calls addJobPanel / addQueuePanel
// at its top level; each panel gets a container of its own, <section class="panel" data-panel="NAME">, inside
// #job-panels (job page) or #queue-panels (queue page), built once per page and handed every poll's answer.

/** A panel of a page: a heading, and a body refilled from each answer of the page's API read. */
interface Panel<T> {
  /** Its data-panel name: unique, lower-case, e.g. "explain". */
  name: string;
  /** Its heading (an h2). */
  title: string;
  /** Fills `body` from the page's data; may return a promise (a panel that reads more itself). */
  update(body: HTMLElement, data: T): void | Promise<void>;
}

const jobPanels: Panel<JobData>[] = [];
const queuePanels: Panel<QueueData>[] = [];

/** Adds a panel to every job page, below the built-in sections. */
function addJobPanel(panel: Panel<JobData>): void {
  jobPanels.push(panel);
}

/** Adds a panel to every queue page, between the activity charts and the jobs. */
function addQueuePanel(panel: Panel<QueueData>): void {
  queuePanels.push(panel);
}

/** The containers of `panels` for one page, and the refill of them all from one answer. */
function mountPanels<T>(panels: Panel<T>[], id: string): { element: HTMLElement; update(data: T): void } {
  const bodies = panels.map((panel) => ({ panel, body: h('div', { class: 'panel-body' }) }));
  const element = h(
    'div',
    { id: id },
    bodies.map(({ panel, body }) => h('section', { class: 'panel', 'data-panel': panel.name }, [h('h2', { text: panel.title }), body])),
  );
  return {
    element,
    update(data: T) {
      bodies.forEach(({ panel, body }) => {
        try {
          const done = panel.update(body, data);
          if (done && typeof done.catch === 'function') done.catch((error: unknown) => fill(body, panelError(error)));
        } catch (error) {
          fill(body, panelError(error));
        }
      });
    },
  };
}

/** A panel that failed says so in its own box: the rest of the page still works. */
function panelError(error: unknown): HTMLElement {
  return h('p', { class: 'status-line error', role: 'alert', text: 'This panel failed: ' + messageOf(error) });
}
