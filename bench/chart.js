'use strict';
// Renders the throughput table to bench/throughput.svg with vega-lite + vega's headless SVG renderer
// (pure JavaScript: no browser, no native canvas). vega and vega-lite are ESM-only, hence import().

/** @param {{label: string, kind: string, metric: string, value: number}[]} rows  @returns {Promise<string>} SVG text */
async function throughputSvg(rows, title) {
  const vega = await import('vega');
  const vegaLite = await import('vega-lite');
  const metrics = [...new Set(rows.map((row) => row.metric))];
  const panel = (metric) => ({
    title: { text: metric, anchor: 'start', fontSize: 13 },
    width: 420,
    height: { step: 22 },
    transform: [{ filter: { field: 'metric', equal: metric } }],
    encoding: {
      y: { field: 'label', type: 'nominal', sort: null, title: null, axis: { labelLimit: 0 } },
      x: { field: 'value', type: 'quantitative', title: 'jobs/s (median)', axis: { format: '~s' } },
    },
    layer: [
      {
        mark: { type: 'bar' },
        encoding: {
          color: {
            field: 'kind',
            type: 'nominal',
            title: null,
            scale: { domain: ['this library', 'other queues', 'raw SQLite, no queue'], range: ['#e45756', '#4c78a8', '#9d9d9d'] },
            legend: { orient: 'bottom', labelLimit: 0 },
          },
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 11 },
        encoding: { text: { field: 'value', type: 'quantitative', format: ',.0f' } },
      },
    ],
  });
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, fontSize: 15 },
    data: { values: rows },
    vconcat: metrics.map(panel),
    config: { background: 'white', view: { stroke: null }, font: 'sans-serif' },
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

module.exports = { throughputSvg };
