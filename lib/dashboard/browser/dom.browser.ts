// DOM helpers: text only, never HTML. Everything the page shows from the server is written with textContent or as
// attribute values of elements it creates, never parsed as HTML: a job payload carrying <script> shows as those
// characters.

/** What an element can hold: nodes, text (numbers become text), nothing (null, undefined, false), or lists of those. */
type Child = Node | string | number | null | undefined | false | Child[];

/**
 * Attributes of an element to create: `text` sets its text, `on<event>` adds a listener, null, undefined and false
 * leave the attribute out, true sets it empty; anything else is set as text.
 */
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** An HTML element with attributes and children. */
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, children?: Child): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs | null | undefined): void {
  if (!attrs) return;
  Object.keys(attrs).forEach((name) => {
    const value = attrs[name];
    if (value === undefined || value === null || value === false) return;
    if (name === 'text') el.textContent = String(value);
    else if (typeof value === 'function') {
      // Only ever a listener: a function is never turned into an inline handler attribute.
      if (name.slice(0, 2) === 'on') el.addEventListener(name.slice(2), value);
    } else el.setAttribute(name, value === true ? '' : String(value));
  });
}

function append(el: Node, children: Child): void {
  if (children === undefined || children === null) return;
  (Array.isArray(children) ? children : [children]).forEach((child) => {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) return append(el, child);
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  });
}

/** An SVG element with presentation attributes (the CSP forbids inline styles). */
function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  const given = attrs || {};
  Object.keys(given).forEach((name) => {
    el.setAttribute(name, String(given[name]));
  });
  return el;
}

/** Replaces a container's children, keeping keyboard focus on the element with the same data-focus key. */
function fill(container: Element, children: Child): void {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.getAttribute('data-focus') : null;
  container.replaceChildren();
  append(container, children);
  if (key) {
    const again = container.querySelector<HTMLElement | SVGElement>('[data-focus="' + CSS.escape(key) + '"]');
    if (again) again.focus();
  }
}

/** An element of the page shell (dashboard-page.ts): the script is useless without it, so its absence is loud. */
function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error('The dashboard page has no #' + id + ' element.');
  return el;
}
