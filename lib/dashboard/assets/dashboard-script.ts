/**
 * The dashboard's script, plain ES2020 with no dependency. Everything it shows from the server is written with
 * `textContent` or as attribute values of elements it creates, never parsed as HTML: a job payload carrying
 * `<script>` shows as those characters. It routes by the URL hash, polls the JSON API while the tab is visible,
 * and sends actions as same-origin JSON POSTs. Kept free of backticks and dollar-brace so it sits in String.raw.
 */
export const DASHBOARD_SCRIPT = String.raw`(function () {
  'use strict';
  var BASE = document.documentElement.getAttribute('data-base') || '';
  var STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'];
  var main = document.getElementById('main');
  var live = document.getElementById('live');
  var statusLine = document.getElementById('action-status');
  var state = { readOnly: true, refresh: 2000, timer: null, view: null, token: 0, lastFocusedMain: false };

  // ---- DOM helpers: text only, never HTML ----
  function h(tag, attrs, children) {
    var el = document.createElement(tag);
    setAttrs(el, attrs);
    append(el, children);
    return el;
  }
  function setAttrs(el, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (name) {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) return;
      if (name === 'text') el.textContent = String(value);
      else if (name.slice(0, 2) === 'on') el.addEventListener(name.slice(2), value);
      else el.setAttribute(name, value === true ? '' : String(value));
    });
  }
  function append(el, children) {
    if (children === undefined || children === null) return;
    (Array.isArray(children) ? children : [children]).forEach(function (child) {
      if (child === undefined || child === null || child === false) return;
      if (Array.isArray(child)) return append(el, child);
      el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    });
  }
  function s(tag, attrs) {
    var el = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs || {}).forEach(function (name) { el.setAttribute(name, String(attrs[name])); });
    return el;
  }
  /** Replaces a container's children, keeping keyboard focus on the element with the same data-focus key. */
  function fill(container, children) {
    var active = document.activeElement;
    var key = active && container.contains(active) ? active.getAttribute('data-focus') : null;
    container.replaceChildren();
    append(container, children);
    if (key) {
      var again = container.querySelector('[data-focus="' + CSS.escape(key) + '"]');
      if (again) again.focus();
    }
  }

  // ---- formatting ----
  function count(n) { return typeof n === 'number' ? n.toLocaleString('en') : '–'; }
  function ms(value) {
    if (typeof value !== 'number') return '–';
    if (value < 1000) return Math.round(value) + ' ms';
    if (value < 60000) return (value / 1000).toFixed(value < 10000 ? 2 : 1) + ' s';
    return (value / 60000).toFixed(1) + ' min';
  }
  function relative(date) {
    var diff = Math.round((date.getTime() - Date.now()) / 1000);
    var abs = Math.abs(diff);
    var text = abs < 60 ? abs + ' s' : abs < 3600 ? Math.round(abs / 60) + ' min' : abs < 86400 ? Math.round(abs / 3600) + ' h' : Math.round(abs / 86400) + ' d';
    return diff >= 0 ? 'in ' + text : text + ' ago';
  }
  var ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
  function when(value) {
    if (value === null || value === undefined) return h('span', { class: 'muted', text: '–' });
    var date = new Date(value);
    if (isNaN(date.getTime())) return String(value);
    return h('time', { datetime: date.toISOString(), title: date.toISOString() }, date.toLocaleString() + ' (' + relative(date) + ')');
  }
  function json(value) { return h('pre', { tabindex: '0' }, typeof value === 'string' ? value : JSON.stringify(value, null, 2)); }
  function badge(status) { return h('span', { class: 'badge ' + status, text: status }); }
  function queueHref(name, params) {
    var query = new URLSearchParams();
    Object.keys(params || {}).forEach(function (k) { if (params[k] !== undefined && params[k] !== '' && params[k] !== null) query.set(k, params[k]); });
    var q = query.toString();
    return '#/queue/' + encodeURIComponent(name) + (q ? '?' + q : '');
  }
  function jobHref(id) { return '#/job/' + encodeURIComponent(id); }

  // ---- server ----
  function request(path, options) {
    return fetch(BASE + '/api/' + path, Object.assign({ credentials: 'same-origin', headers: { accept: 'application/json' } }, options || {})).then(function (response) {
      return response.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = { message: text }; }
        if (!response.ok) {
          var error = new Error((body && body.message) || ('HTTP ' + response.status));
          error.status = response.status;
          throw error;
        }
        return body;
      });
    });
  }
  function say(message, isError) {
    statusLine.className = 'status-line' + (isError ? ' error' : '');
    statusLine.setAttribute('role', isError ? 'alert' : 'status');
    statusLine.textContent = message;
  }
  /** Sends an action after confirmation where it destroys something; says what happened; refreshes. */
  function act(path, body, confirmText) {
    if (confirmText && !window.confirm(confirmText)) { say('Nothing done.'); return; }
    request(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body || {}) })
      .then(function (answer) { say(answer.message); })
      .catch(function (error) { say(error.message, true); })
      .then(function () { refresh(); });
  }
  function actionButton(label, path, body, confirmText, extra) {
    return h('button', Object.assign({ type: 'button', 'data-focus': label + path, onclick: function () { act(path, body, confirmText); } }, extra || {}), label);
  }

  // ---- charts (inline SVG, presentation attributes only: the CSP forbids inline styles) ----
  var COLORS = { completed: '#1a7f37', failed: '#cf222e', wait: '#0969da', run: '#8250df' };
  function maxOf(series) {
    var max = 0;
    series.forEach(function (one) { one.values.forEach(function (v) { if (typeof v === 'number' && v > max) max = v; }); });
    return max;
  }
  function points(values, width, height, max, pad) {
    var step = values.length > 1 ? (width - 2 * pad) / (values.length - 1) : 0;
    var out = [];
    values.forEach(function (v, i) {
      if (typeof v !== 'number') return;
      out.push((pad + i * step).toFixed(1) + ',' + (height - pad - (max > 0 ? (v / max) * (height - 2 * pad) : 0)).toFixed(1));
    });
    return out.join(' ');
  }
  /** A value with no neighbour draws no line: mark it with a dot so a lone minute of activity shows. */
  function dots(svg, one, width, height, max, pad, radius) {
    var step = one.values.length > 1 ? (width - 2 * pad) / (one.values.length - 1) : 0;
    one.values.forEach(function (v, i) {
      if (typeof v !== 'number' || typeof one.values[i - 1] === 'number' || typeof one.values[i + 1] === 'number') return;
      svg.appendChild(s('circle', { cx: (pad + i * step).toFixed(1), cy: (height - pad - (max > 0 ? (v / max) * (height - 2 * pad) : 0)).toFixed(1), r: radius, fill: COLORS[one.color] }));
    });
  }
  function describe(series, unit, minutes) {
    return series.map(function (one) {
      var last = one.values[one.values.length - 1];
      return one.name + ' over the last ' + minutes + ' minutes: latest ' + (unit === 'ms' ? ms(last) : count(last || 0)) + ', highest ' + (unit === 'ms' ? ms(maxOf([one])) : count(maxOf([one])));
    }).join('; ');
  }
  function sparkline(series, unit, minutes) {
    var width = 96, height = 26, max = maxOf(series);
    var svg = s('svg', { class: 'spark', width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-label': describe(series, unit, minutes) });
    svg.appendChild(s('line', { x1: 0, x2: width, y1: height - 1, y2: height - 1, stroke: '#d0d7de', 'stroke-width': 1 }));
    series.forEach(function (one) {
      svg.appendChild(s('polyline', { points: points(one.values, width, height, max, 2), fill: 'none', stroke: COLORS[one.color], 'stroke-width': 1.5 }));
      dots(svg, one, width, height, max, 2, 2);
    });
    return svg;
  }
  function chart(title, series, unit, minutes) {
    var width = 600, height = 170, pad = 24, max = maxOf(series);
    var svg = s('svg', { class: 'chart', viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-label': title + '. ' + describe(series, unit, minutes) });
    [0, 0.5, 1].forEach(function (f) {
      var y = height - pad - f * (height - 2 * pad);
      svg.appendChild(s('line', { x1: pad, x2: width - pad, y1: y, y2: y, stroke: '#d0d7de', 'stroke-width': 1 }));
      var label = s('text', { x: pad + 2, y: y - 3, 'font-size': 11, fill: '#57606a' });
      label.textContent = unit === 'ms' ? ms(max * f) : count(Math.round(max * f * 10) / 10);
      svg.appendChild(label);
    });
    var left = s('text', { x: pad, y: height - 6, 'font-size': 11, fill: '#57606a' });
    left.textContent = minutes + ' min ago';
    var right = s('text', { x: width - pad, y: height - 6, 'font-size': 11, fill: '#57606a', 'text-anchor': 'end' });
    right.textContent = 'now';
    svg.appendChild(left);
    svg.appendChild(right);
    series.forEach(function (one) {
      svg.appendChild(s('polyline', { points: points(one.values, width, height, max, pad), fill: 'none', stroke: COLORS[one.color], 'stroke-width': 2, 'stroke-dasharray': one.dashed ? '5 4' : 'none' }));
      dots(svg, one, width, height, max, pad, 3);
    });
    var legend = h('div', { class: 'legend' }, series.map(function (one) { return h('span', null, [h('span', { class: 'swatch ' + one.color }), one.name]); }));
    return h('figure', null, [h('figcaption', { text: title }), svg, legend]);
  }
  function pick(list, field) { return (list || []).map(function (p) { return p ? p[field] : null; }); }
  function throughputSeries(m) { return [{ name: 'Completed per minute', values: m.completedPerMinute, color: 'completed' }, { name: 'Failed per minute', values: m.failedPerMinute, color: 'failed' }]; }
  function emptyMinutes(minutes) { var a = []; for (var i = 0; i < minutes; i++) a.push(0); return a; }

  // ---- views: mount() builds the page once, update(data) refills its data parts on every poll ----
  function overviewView() {
    var table = h('div', { class: 'table-wrap' });
    var note = h('p', { class: 'muted' });
    return {
      title: 'Queues',
      load: function () { return request('overview'); },
      mount: function () { return [h('h1', { text: 'Queues' }), note, table]; },
      update: function (data) {
        var minutes = data.chartMinutes;
        note.textContent = data.queues.length + ' queue(s). Charts cover the last ' + minutes + ' minutes' + (data.sampled ? ' (sampled: the newest finished jobs only)' : '') + '.';
        var head = h('tr', null, [h('th', { scope: 'col', text: 'Queue' }), h('th', { scope: 'col', text: 'State' }), h('th', { scope: 'col', text: 'Processor' })]
          .concat(STATUSES.map(function (st) { return h('th', { scope: 'col', class: 'num', text: st[0].toUpperCase() + st.slice(1) }); }))
          .concat([h('th', { scope: 'col', text: 'Throughput' }), h('th', { scope: 'col', text: 'Wait p50 / p95' }), h('th', { scope: 'col', text: 'Run p50 / p95' })])
          .concat(data.readOnly ? [] : [h('th', { scope: 'col', text: 'Actions' })]));
        var rows = data.queues.map(function (q) {
          var m = q.metrics;
          var cells = [
            h('th', { scope: 'row' }, h('a', { href: queueHref(q.name), 'data-focus': 'q:' + q.name, text: q.name })),
            h('td', { 'data-label': 'State' }, q.paused ? badge('paused') : badge('active')),
            h('td', { 'data-label': 'Processor' }, q.hasProcessor ? 'yes (' + q.concurrency + ')' : q.processed ? 'elsewhere' : h('span', { class: 'badge none', text: 'none' }))
          ].concat(STATUSES.map(function (st) {
            return h('td', { class: 'num', 'data-count': st, 'data-label': st[0].toUpperCase() + st.slice(1) }, h('a', { href: queueHref(q.name, { status: st }), 'aria-label': count(q.counts[st]) + ' ' + st + ' in ' + q.name, text: count(q.counts[st]) }));
          })).concat([
            h('td', { 'data-label': 'Throughput' }, m ? h('div', { class: 'metric' }, [sparkline(throughputSeries(m), 'count', minutes), m.completed + m.failed + ' done']) : h('span', { class: 'muted', text: 'idle' })),
            h('td', { 'data-label': 'Wait p50 / p95' }, m && m.waitTime ? h('div', { class: 'metric' }, [sparkline([{ name: 'Wait p95', values: pick(m.waitTimePerMinute, 'p95'), color: 'wait' }], 'ms', minutes), ms(m.waitTime.p50) + ' / ' + ms(m.waitTime.p95)]) : '–'),
            h('td', { 'data-label': 'Run p50 / p95' }, m && m.runTime ? h('div', { class: 'metric' }, [sparkline([{ name: 'Run p95', values: pick(m.runTimePerMinute, 'p95'), color: 'run' }], 'ms', minutes), ms(m.runTime.p50) + ' / ' + ms(m.runTime.p95)]) : '–')
          ]);
          if (!data.readOnly) {
            cells.push(h('td', { 'data-label': 'Actions' }, q.paused
              ? actionButton('Resume', 'queues/' + encodeURIComponent(q.name) + '/resume', null, null, { 'aria-label': 'Resume ' + q.name })
              : actionButton('Pause', 'queues/' + encodeURIComponent(q.name) + '/pause', null, null, { 'aria-label': 'Pause ' + q.name })));
          }
          return h('tr', { 'data-queue': q.name }, cells);
        });
        fill(table, data.queues.length ? h('table', { class: 'cards' }, [h('caption', { class: 'muted', text: 'Jobs per queue and status', hidden: true }), h('thead', null, head), h('tbody', null, rows)]) : h('p', { text: 'No queue yet: queues appear once they have a job, a processor or a pause.' }));
      }
    };
  }

  function queueView(name, params) {
    var status = params.get('status') || '';
    var search = params.get('search') || '';
    var offset = Number(params.get('offset') || 0) || 0;
    var heading = h('h1');
    var tools = h('div', { class: 'toolbar' });
    var tabs = h('ul', { class: 'tabs', 'aria-label': 'Status' });
    var charts = h('div', { class: 'charts' });
    var list = h('div');
    var searchInput = h('input', { type: 'search', id: 'job-search', name: 'search', value: search, placeholder: 'e.g. 42 or invoice-17', autocomplete: 'off' });
    var searchForm = h('form', { class: 'inline', role: 'search', onsubmit: function (event) {
      event.preventDefault();
      location.hash = queueHref(name, { search: searchInput.value.trim() });
    } }, [h('label', { for: 'job-search' }, ['Search by job id or key', searchInput]), h('button', { type: 'submit', text: 'Search' }),
      search ? h('a', { href: queueHref(name), text: 'Clear search' }) : null]);
    var query = 'queues/' + encodeURIComponent(name) + '?' + new URLSearchParams({ status: status, offset: String(offset), search: search }).toString();
    var mountedTools = false;
    return {
      title: 'Queue ' + name,
      load: function () { return request(query); },
      mount: function () {
        return [h('p', null, h('a', { href: '#/', text: '← All queues' })), heading, tools, h('h2', { text: 'Activity' }), charts, h('h2', { text: 'Jobs' }), tabs, searchForm, list];
      },
      // A mistyped URL names no queue (404): say so, with nothing to act on (an action would create the queue).
      missing: function (message) {
        return [h('p', null, h('a', { href: '#/', text: '← All queues' })), h('h1', { text: 'No such queue' }), h('p', { 'data-missing': '', text: message })];
      },
      update: function (data) {
        var q = data.queue;
        fill(heading, ['Queue ' + q.name, q.paused ? badge('paused') : badge('active'), q.hasProcessor ? h('small', { class: 'muted', text: 'processor here, concurrency ' + q.concurrency }) : h('span', { class: 'badge none', text: 'no processor in this app' })]);
        if (!data.readOnly) fill(tools, queueTools(q));
        else if (!mountedTools) fill(tools, h('p', { class: 'muted', text: 'Read-only dashboard: no actions.' }));
        mountedTools = true;
        var m = q.metrics;
        var minutes = state.chartMinutes;
        fill(charts, [
          chart('Throughput', throughputSeries(m || { completedPerMinute: emptyMinutes(minutes), failedPerMinute: emptyMinutes(minutes) }), 'count', minutes),
          chart('Wait and run time (p50, p95)', [
            { name: 'Wait p50', values: pick(m && m.waitTimePerMinute, 'p50'), color: 'wait', dashed: true },
            { name: 'Wait p95', values: pick(m && m.waitTimePerMinute, 'p95'), color: 'wait' },
            { name: 'Run p50', values: pick(m && m.runTimePerMinute, 'p50'), color: 'run', dashed: true },
            { name: 'Run p95', values: pick(m && m.runTimePerMinute, 'p95'), color: 'run' }
          ], 'ms', minutes)
        ]);
        var total = STATUSES.reduce(function (sum, st) { return sum + q.counts[st]; }, 0);
        fill(tabs, [['', 'All', total]].concat(STATUSES.map(function (st) { return [st, st, q.counts[st]]; })).map(function (tab) {
          return h('li', null, h('a', { href: queueHref(name, { status: tab[0] }), 'aria-current': !search && tab[0] === status ? 'page' : null, 'data-focus': 'tab:' + tab[0] }, tab[1] + ' (' + count(tab[2]) + ')'));
        }));
        fill(list, jobsTable(data));
      }
    };
  }

  function queueTools(q) {
    var path = 'queues/' + encodeURIComponent(q.name) + '/';
    var minutesInput = h('input', { type: 'number', id: 'clean-minutes', min: '0', step: '1', value: '60', 'data-focus': 'clean-minutes' });
    var which = h('select', { id: 'clean-status', 'data-focus': 'clean-status' }, [h('option', { value: 'completed', text: 'completed' }), h('option', { value: 'failed', text: 'failed' }), h('option', { value: 'cancelled', text: 'cancelled' }), h('option', { value: 'all', text: 'all finished' })]);
    var form = h('form', { class: 'inline', 'aria-label': 'Clean finished jobs', onsubmit: function (event) {
      event.preventDefault();
      var minutes = Number(minutesInput.value);
      var statuses = which.value === 'all' ? ['completed', 'failed', 'cancelled'] : [which.value];
      act(path + 'clean', { statuses: statuses, olderThanMinutes: minutes }, 'Delete the ' + statuses.join('/') + ' jobs of ' + q.name + ' that finished more than ' + minutes + ' minute(s) ago? This cannot be undone.');
    } }, [h('label', { for: 'clean-status' }, ['Clean jobs', which]), h('label', { for: 'clean-minutes' }, ['finished more than (minutes) ago', minutesInput]), h('button', { type: 'submit', class: 'danger', 'data-focus': 'clean' }, 'Clean')]);
    return [
      q.paused ? actionButton('Resume queue', path + 'resume') : actionButton('Pause queue', path + 'pause'),
      actionButton('Retry all failed', path + 'retry-failed', null, null, { disabled: q.counts.failed === 0 ? true : null }),
      cleanForm(q.name, form)
    ];
  }
  // The clean form keeps what the operator typed across refreshes: the first one built for a queue is reused.
  var cleanForms = {};
  function cleanForm(name, form) { if (!cleanForms[name]) cleanForms[name] = form; return cleanForms[name]; }

  function jobsTable(data) {
    if (!data.jobs.length) return h('p', { text: data.search ? 'No job of this queue has id or key "' + data.search + '".' : 'No job here.' });
    // A job name column appears when the server's jobs carry one (JobInfo may grow fields; the page follows).
    var named = data.jobs.some(function (job) { return typeof job.name === 'string'; });
    var rows = data.jobs.map(function (job) {
      return h('tr', { 'data-job': job.id }, [
        h('td', null, h('a', { href: jobHref(job.id), 'data-focus': 'job:' + job.id, text: job.id })),
        named ? h('td', { 'data-label': 'Name', text: typeof job.name === 'string' ? job.name : '' }) : null,
        h('td', { 'data-label': 'Status' }, badge(job.status)),
        h('td', { class: 'wrap', 'data-label': 'Key' }, isHidden(job, 'key') ? h('span', { class: 'muted', text: 'hidden' }) : job.key === null ? h('span', { class: 'muted', text: '–' }) : job.key),
        h('td', { class: 'num', 'data-label': 'Attempts' }, job.attempts + ' / ' + job.maxAttempts),
        h('td', { 'data-label': 'Created' }, when(job.createdAt)),
        h('td', { 'data-label': 'Finished' }, when(job.finishedAt)),
        h('td', { class: 'wrap', 'data-label': 'Last error' }, job.error || '')
      ]);
    });
    var titles = named ? ['Id', 'Name', 'Status', 'Key', 'Attempts', 'Created', 'Finished', 'Last error'] : ['Id', 'Status', 'Key', 'Attempts', 'Created', 'Finished', 'Last error'];
    var head = h('tr', null, titles.map(function (title) {
      return h('th', { scope: 'col', class: title === 'Attempts' ? 'num' : null, text: title });
    }));
    var parts = [h('div', { class: 'table-wrap' }, h('table', { class: 'cards' }, [h('thead', null, head), h('tbody', null, rows)]))];
    if (!data.search) {
      var from = data.offset + 1, to = data.offset + data.jobs.length;
      var name = data.queue.name, status = data.status || '';
      parts.push(h('nav', { class: 'pager', 'aria-label': 'Pages' }, [
        data.offset > 0 ? h('a', { href: queueHref(name, { status: status, offset: Math.max(0, data.offset - data.limit) || null }), text: '← Newer', 'data-focus': 'newer' }) : null,
        h('span', { text: 'Jobs ' + from + '–' + to + ' of ' + count(data.total) }),
        to < data.total ? h('a', { href: queueHref(name, { status: status, offset: data.offset + data.limit }), text: 'Older →', 'data-focus': 'older' }) : null
      ]));
    }
    return parts;
  }

  var KNOWN = ['id', 'queue', 'name', 'status', 'data', 'result', 'error', 'progress', 'priority', 'attempts', 'maxAttempts', 'key', 'lockedBy', 'leaseUntil', 'createdAt', 'runAt', 'startedAt', 'finishedAt', 'updatedAt'];
  function jobView(id) {
    var body = h('div');
    return {
      title: 'Job ' + id,
      load: function () { return request('jobs/' + encodeURIComponent(id)); },
      mount: function () { return [body]; },
      update: function (data) {
        var job = data.job;
        var actions = [];
        if (!data.readOnly) {
          if (job.status === 'failed' || job.status === 'cancelled') actions.push(actionButton('Retry', 'jobs/' + encodeURIComponent(job.id) + '/retry'));
          if (job.status === 'pending' || job.status === 'running') actions.push(actionButton('Cancel', 'jobs/' + encodeURIComponent(job.id) + '/cancel', null, 'Cancel job ' + job.id + '? It will not run (again).', { class: 'danger' }));
          if (job.status !== 'running') actions.push(actionButton('Remove', 'jobs/' + encodeURIComponent(job.id) + '/remove', null, 'Remove job ' + job.id + ' for good? This cannot be undone.', { class: 'danger' }));
        }
        var fields = [
          ['Queue', h('a', { href: queueHref(job.queue), text: job.queue })], ['Name', typeof job.name === 'string' ? job.name : '–'], ['Status', badge(job.status)], ['Attempts', job.attempts + ' of ' + job.maxAttempts],
          ['Priority', String(job.priority)], ['Key', isHidden(data, 'key') ? h('span', { class: 'muted', text: 'hidden' }) : job.key === null ? '–' : job.key], ['Owner (worker)', job.lockedBy || '–'], ['Lease until', when(job.leaseUntil)],
          ['Created', when(job.createdAt)], ['Due', when(job.runAt)], ['Started', when(job.startedAt)], ['Finished', when(job.finishedAt)], ['Updated', when(job.updatedAt)]
        ];
        var other = Object.keys(job).filter(function (k) { return KNOWN.indexOf(k) < 0; });
        var sections = [
          h('p', null, h('a', { href: queueHref(job.queue), text: '← Queue ' + job.queue })),
          h('h1', null, ['Job ' + job.id, badge(job.status)]),
          actions.length ? h('div', { class: 'toolbar' }, actions) : null,
          h('dl', { class: 'fields' }, fields.map(function (f) { return [h('dt', { text: f[0] }), h('dd', null, f[1])]; }).reduce(function (a, b) { return a.concat(b); }, [])),
          h('h2', { text: 'Progress' }), isHidden(data, 'progress') ? hiddenNote() : progressOf(job.progress),
          h('h2', { text: 'Data' }), isHidden(data, 'data') ? hiddenNote() : json(job.data),
          h('h2', { text: 'Result' }), isHidden(data, 'result') ? hiddenNote() : job.result === null ? h('p', { class: 'muted', text: 'None.' }) : json(job.result),
          h('h2', { text: 'Error' }), errorsOf(job)
        ];
        if (other.length) {
          sections.push(h('h2', { text: 'Other fields' }));
          sections.push(h('dl', { class: 'fields' }, other.map(function (k) { return [h('dt', { text: k }), h('dd', null, generic(job[k]))]; }).reduce(function (a, b) { return a.concat(b); }, [])));
        }
        fill(body, sections);
      }
    };
  }
  /** Whether the server kept a field back (the redact option): 'hidden' lists them, on a job's page and on each listed job. */
  function isHidden(holder, field) { return Array.isArray(holder.hidden) && holder.hidden.indexOf(field) >= 0; }
  function hiddenNote() { return h('p', { class: 'muted', text: 'Hidden by the dashboard\'s redact option.' }); }
  function generic(value) {
    if (value === null || value === undefined) return h('span', { class: 'muted', text: '–' });
    if (typeof value === 'string' && ISO.test(value)) return when(value);
    if (typeof value === 'object') return json(value);
    return String(value);
  }
  function progressOf(progress) {
    if (progress === null || progress === undefined) return h('p', { class: 'muted', text: 'None reported.' });
    if (typeof progress === 'number') return h('p', null, [h('progress', { max: '100', value: String(progress), 'aria-label': 'Progress' }), ' ' + progress + ' %']);
    return json(progress);
  }
  function errorsOf(job) {
    // The last attempt's error first, then the earlier attempts' it carries (newest first).
    var list = job.error ? [job.error].concat(Array.isArray(job.error.previous) ? job.error.previous : []) : [];
    if (!list.length) return h('p', { class: 'muted', text: 'No failed attempt.' });
    return list.map(function (error) {
      return h('div', { class: 'error-box' }, [
        h('h3', { text: 'Attempt ' + (error.attempt || '?') + ': ' + error.name }),
        h('p', { 'data-error-message': '' }, error.message),
        error.code !== undefined ? h('p', { class: 'muted', text: 'code ' + error.code }) : null,
        error.stack ? h('details', { open: error === list[0] ? true : null }, [h('summary', { text: 'Stack' }), json(error.stack)]) : null
      ]);
    });
  }

  function schedulesView() {
    var body = h('div');
    return {
      title: 'Schedules',
      load: function () { return request('schedules'); },
      mount: function () { return [h('h1', { text: 'Recurring jobs' }), body]; },
      update: function (data) {
        if (!data.schedules.length) { fill(body, h('p', { text: 'No recurring job.' })); return; }
        var head = h('tr', null, ['Queue', 'Name', 'Every / cron', 'Time zone', 'Next run', 'Data'].map(function (t) { return h('th', { scope: 'col', text: t }); }));
        var rows = data.schedules.map(function (sc) {
          return h('tr', { 'data-schedule': sc.queue + '/' + sc.name }, [
            h('td', null, h('a', { href: queueHref(sc.queue), text: sc.queue })), h('td', { text: sc.name }),
            h('td', { text: sc.cron !== null ? sc.cron : 'every ' + ms(sc.every) }), h('td', { text: sc.timezone || 'process default' }),
            h('td', null, when(sc.nextRunAt)),
            h('td', { class: 'wrap' }, sc.dataHidden ? h('span', { class: 'muted', text: 'hidden' }) : JSON.stringify(sc.data))
          ]);
        });
        fill(body, h('div', { class: 'table-wrap' }, h('table', null, [h('thead', null, head), h('tbody', null, rows)])));
      }
    };
  }

  // ---- routing and polling ----
  function route() {
    var hash = location.hash.replace(/^#/, '') || '/';
    var qIndex = hash.indexOf('?');
    var path = qIndex >= 0 ? hash.slice(0, qIndex) : hash;
    var params = new URLSearchParams(qIndex >= 0 ? hash.slice(qIndex + 1) : '');
    var parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'queue' && parts[1]) return queueView(parts[1], params);
    if (parts[0] === 'job' && parts[1]) return jobView(parts[1]);
    if (parts[0] === 'schedules') return schedulesView();
    return overviewView();
  }
  function show() {
    var view = route();
    state.view = view;
    state.token++;
    document.title = view.title + ' · Queues';
    fill(main, view.mount());
    refresh(true);
  }
  function refresh(focus) {
    var view = state.view, token = state.token;
    clearTimeout(state.timer);
    return view.load().then(function (data) {
      if (token !== state.token) return;
      // The page said "no such queue" and the queue has appeared since: its own page again.
      if (view.gone) { view.gone = false; fill(main, view.mount()); }
      if (typeof data.readOnly === 'boolean') state.readOnly = data.readOnly;
      // The statuses come from the server's counts, so a status a later version adds shows without a change here.
      var counts = (data.queue && data.queue.counts) || (data.queues && data.queues[0] && data.queues[0].counts);
      if (counts) STATUSES = Object.keys(counts);
      if (data.refreshInterval) state.refresh = data.refreshInterval;
      if (data.chartMinutes) state.chartMinutes = data.chartMinutes;
      view.update(data);
      live.textContent = 'Updated ' + new Date().toLocaleTimeString() + (state.readOnly ? ' · read-only' : '');
      if (focus === true && state.focusMain) main.focus();
    }).catch(function (error) {
      if (token !== state.token) return;
      if (error.status === 404 && view.missing) {
        if (!view.gone) fill(main, view.missing(error.message));
        view.gone = true;
        live.textContent = error.message;
        return;
      }
      live.textContent = 'Could not refresh: ' + error.message;
      if (focus === true) main.insertBefore(h('p', { role: 'alert', class: 'status-line error', text: error.message }), main.firstChild);
    }).then(function () {
      if (token === state.token) state.timer = setTimeout(tick, state.refresh);
    });
  }
  function tick() { if (!document.hidden) refresh(); else state.timer = setTimeout(tick, state.refresh); }
  document.addEventListener('visibilitychange', function () { if (!document.hidden) refresh(); });
  window.addEventListener('hashchange', function () { state.focusMain = true; say(''); statusLine.className = 'status-line'; show(); });
  state.chartMinutes = 60;
  show();
})();
`;
