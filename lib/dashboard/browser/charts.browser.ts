// Charts: inline SVG with presentation attributes only (the CSP forbids inline styles). Each line and dot also has
// a class the stylesheet colours (series-<color>), so the dark theme recolours them; the attributes are the fallback.

/** Each a distinct hue: completed and failed for counts, p50 and p95 for every duration chart and its legend. */
const COLORS = { completed: '#1a7f37', failed: '#cf222e', p50: '#0969da', p95: '#bc4c00' };

/** One line of a chart: a value per minute, oldest first; null where nothing was measured. */
interface Series {
  name: string;
  values: (number | null)[];
  color: keyof typeof COLORS;
  dashed?: boolean;
}

type Unit = 'ms' | 'count';

function maxOf(series: Series[]): number {
  let max = 0;
  series.forEach((one) => {
    one.values.forEach((v) => {
      if (typeof v === 'number' && v > max) max = v;
    });
  });
  return max;
}

function points(values: (number | null)[], width: number, height: number, max: number, pad: number): string {
  const step = values.length > 1 ? (width - 2 * pad) / (values.length - 1) : 0;
  const out: string[] = [];
  values.forEach((v, i) => {
    if (typeof v !== 'number') return;
    out.push((pad + i * step).toFixed(1) + ',' + (height - pad - (max > 0 ? (v / max) * (height - 2 * pad) : 0)).toFixed(1));
  });
  return out.join(' ');
}

/** A value with no neighbour draws no line: mark it with a dot so a lone minute of activity shows. */
function dots(svg: SVGElement, one: Series, width: number, height: number, max: number, pad: number, radius: number): void {
  const step = one.values.length > 1 ? (width - 2 * pad) / (one.values.length - 1) : 0;
  one.values.forEach((v, i) => {
    if (typeof v !== 'number' || typeof one.values[i - 1] === 'number' || typeof one.values[i + 1] === 'number') return;
    svg.appendChild(
      s('circle', {
        cx: (pad + i * step).toFixed(1),
        cy: (height - pad - (max > 0 ? (v / max) * (height - 2 * pad) : 0)).toFixed(1),
        r: radius,
        fill: COLORS[one.color],
        class: 'dot series-' + one.color,
      }),
    );
  });
}

/** The chart in words, for its aria-label. */
function describe(series: Series[], unit: Unit, minutes: number): string {
  return series
    .map((one) => {
      const last = one.values[one.values.length - 1];
      return (
        one.name +
        ' over the last ' +
        minutes +
        ' minutes: latest ' +
        (unit === 'ms' ? ms(last) : count(last || 0)) +
        ', highest ' +
        (unit === 'ms' ? ms(maxOf([one])) : count(maxOf([one])))
      );
    })
    .join('; ');
}

/** A small chart for a table cell. */
function sparkline(series: Series[], unit: Unit, minutes: number): SVGSVGElement {
  const width = 96;
  const height = 26;
  const max = maxOf(series);
  const svg = s('svg', {
    class: 'spark',
    width: width,
    height: height,
    viewBox: '0 0 ' + width + ' ' + height,
    role: 'img',
    'aria-label': describe(series, unit, minutes),
  });
  svg.appendChild(s('line', { x1: 0, x2: width, y1: height - 1, y2: height - 1, stroke: '#d0d7de', 'stroke-width': 1, class: 'grid' }));
  series.forEach((one) => {
    svg.appendChild(
      s('polyline', {
        points: points(one.values, width, height, max, 2),
        fill: 'none',
        stroke: COLORS[one.color],
        'stroke-width': 1.5,
        class: 'series-' + one.color,
      }),
    );
    dots(svg, one, width, height, max, 2, 2);
  });
  return svg;
}

/** The width of a chart's viewBox: its lines are drawn in these units, then scaled to the column's width. */
const CHART_WIDTH = 600;

/** The size, in CSS pixels, a chart's axis labels are drawn at whatever width the chart takes. */
const AXIS_TEXT_PX = 11;

/**
 * Gives the axis labels of the charts under `root` the size in viewBox units that draws them at AXIS_TEXT_PX: a
 * chart is drawn at its column's width (about 330 px at 1280), so a fixed size in viewBox units shrank with it
 * (11 units came out at 6 px). Called once the charts are on the page, and again on a resize.
 */
function fitAxisText(root: ParentNode): void {
  root.querySelectorAll('svg.chart').forEach((svg) => {
    const drawn = svg.getBoundingClientRect().width;
    if (!drawn) return;
    const size = ((AXIS_TEXT_PX * CHART_WIDTH) / drawn).toFixed(1);
    svg.querySelectorAll('text.axis').forEach((label) => label.setAttribute('font-size', size));
  });
}
window.addEventListener('resize', () => fitAxisText(document));

/** A titled chart with a scale, a time axis and a legend; `fitAxisText` sizes its labels once it is on the page. */
function chart(title: string, series: Series[], unit: Unit, minutes: number): HTMLElement {
  const width = CHART_WIDTH;
  const height = 170;
  const pad = 24;
  // Counts are whole: the scale's top is a whole number and its ticks whole steps (no "0.5 per minute").
  const max = unit === 'count' ? countScaleTop(maxOf(series)) : maxOf(series);
  const svg = s('svg', {
    class: 'chart',
    viewBox: '0 0 ' + width + ' ' + height,
    role: 'img',
    'aria-label': title + '. ' + describe(series, unit, minutes),
  });
  ticksOf(max, unit).forEach((value) => {
    const y = height - pad - (max > 0 ? value / max : 0) * (height - 2 * pad);
    svg.appendChild(s('line', { x1: pad, x2: width - pad, y1: y, y2: y, stroke: '#d0d7de', 'stroke-width': 1, class: 'grid' }));
    const label = s('text', { x: pad + 2, y: y - 3, 'font-size': 11, fill: '#57606a', class: 'axis', 'data-tick': value });
    label.textContent = unit === 'ms' ? ms(value) : count(value);
    svg.appendChild(label);
  });
  const left = s('text', { x: pad, y: height - 6, 'font-size': 11, fill: '#57606a', class: 'axis' });
  left.textContent = minutes + ' min ago';
  const right = s('text', { x: width - pad, y: height - 6, 'font-size': 11, fill: '#57606a', 'text-anchor': 'end', class: 'axis' });
  right.textContent = 'now';
  svg.appendChild(left);
  svg.appendChild(right);
  series.forEach((one) => {
    svg.appendChild(
      s('polyline', {
        points: points(one.values, width, height, max, pad),
        fill: 'none',
        stroke: COLORS[one.color],
        'stroke-width': 2,
        'stroke-dasharray': one.dashed ? '5 4' : 'none',
        class: 'series-' + one.color,
      }),
    );
    dots(svg, one, width, height, max, pad, 3);
  });
  const legend = h(
    'div',
    { class: 'legend' },
    series.map((one) => h('span', null, [h('span', { class: 'swatch ' + one.color }), one.name])),
  );
  return h('figure', null, [h('figcaption', { text: title }), svg, legend]);
}

/** One percentile per minute; null for a minute without one, or for no list at all. */
function pick(list: (WirePercentiles | null)[] | null | undefined, field: keyof WirePercentiles): (number | null)[] {
  return (list || []).map((p) => (p ? p[field] : null));
}

function throughputSeries(m: Pick<WireMetrics, 'completedPerMinute' | 'failedPerMinute'>): Series[] {
  return [
    { name: 'Completed per minute', values: m.completedPerMinute, color: 'completed' },
    { name: 'Failed per minute', values: m.failedPerMinute, color: 'failed' },
  ];
}

function emptyMinutes(minutes: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < minutes; i++) a.push(0);
  return a;
}

/** The top of a count chart's scale: a whole number at least the highest value (1 for an empty chart). */
function countScaleTop(max: number): number {
  return Math.max(1, Math.ceil(max));
}

/** The scale's ticks: 0, the middle and the top; for counts only whole numbers (0 and 1 for a top of 1). */
function ticksOf(max: number, unit: Unit): number[] {
  if (unit === 'ms') return [0, max / 2, max];
  const middle = max / 2;
  return Number.isInteger(middle) && middle > 0 ? [0, middle, max] : [0, max];
}

/** Wait or run time, p50 and p95 per minute, each its own colour. */
function percentileSeries(what: string, list: (WirePercentiles | null)[] | null | undefined): Series[] {
  return [
    { name: what + ' p50', values: pick(list, 'p50'), color: 'p50' },
    { name: what + ' p95', values: pick(list, 'p95'), color: 'p95' },
  ];
}
