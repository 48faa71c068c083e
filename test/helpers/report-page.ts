// Reads report.html the way its script does: the charts' data from the JSON block, each series
// as a step -> value map (null: a NaN/Inf left out), and the page without its scripts (what a
// reader sees with JavaScript off, and where a stray 'NaN' or 'undefined' would show).
import assert from 'node:assert/strict';

export interface PageSeries {
  name: string;
  color: string;
  style: 'line' | 'points';
  format: string;
  x: number;
  y: (number | null)[];
}

export interface PageLinePlot {
  kind: 'line';
  yLabel: string;
  xMax: number;
  log: boolean;
  percent: boolean;
  series: PageSeries[];
  marks: { x: number; color: string; label: string }[];
  markLegend: { name: string; color: string }[];
  empty: string | null;
}

export interface PageBarPlot {
  kind: 'bars';
  yLabel: string;
  xMax: number;
  spans: [number, number][];
  layers: { name: string; color: string; values: (number | null)[] }[];
  overlay: { name: string; values: (number | null)[] } | null;
  yMax: number;
  cappedAt: number | null;
  empty: string | null;
}

export interface PageData {
  steps: number[][];
  charts: { id: string; plot: PageLinePlot | PageBarPlot }[];
}

/** The JSON block's text, checked to hold no '<' (every one written as \u003c), parsed. */
export function pageData(page: string): PageData {
  const m = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(page);
  assert.ok(m, 'report.html has no report-data block');
  assert.doesNotMatch(m[1]!, /</, "a raw '<' in the JSON block");
  return JSON.parse(m[1]!) as PageData;
}

export function linePlot(page: string | PageData, id: string): PageLinePlot {
  const data = typeof page === 'string' ? pageData(page) : page;
  const c = data.charts.find((ch) => ch.id === id);
  assert.ok(c, `no chart ${id} in the data block: ${data.charts.map((ch) => ch.id).join(', ')}`);
  assert.equal(c.plot.kind, 'line', `${id} is not a line chart`);
  return c.plot;
}

export function barPlot(page: string | PageData, id = 'phases'): PageBarPlot {
  const data = typeof page === 'string' ? pageData(page) : page;
  const c = data.charts.find((ch) => ch.id === id);
  assert.ok(c && c.plot.kind === 'bars', `no bar chart ${id}`);
  return c.plot;
}

/** One series of a line chart as step -> value; fails naming the series the chart has. */
export function seriesValues(page: string | PageData, id: string, name: string): Map<number, number | null> {
  const data = typeof page === 'string' ? pageData(page) : page;
  const plot = linePlot(data, id);
  const s = plot.series.find((x) => x.name === name);
  assert.ok(s, `chart ${id} has no series '${name}': ${plot.series.map((x) => x.name).join(', ')}`);
  const steps = data.steps[s.x]!;
  assert.equal(steps.length, s.y.length, `${id}/${name}: as many steps as values`);
  return new Map(steps.map((x, i) => [x, s.y[i]!]));
}

/** The page less its <script> elements: what shows with JavaScript off. */
export function withoutScripts(page: string): string {
  return page.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
}

/** The <figure> of one chart, as HTML. */
export function figureOf(page: string, id: string): string {
  const m = new RegExp(`<figure[^>]*id="chart-${id}">([\\s\\S]*?)</figure>`).exec(page);
  assert.ok(m, `no figure chart-${id}`);
  return m[1]!;
}
