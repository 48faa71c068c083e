// The report's charts as data: what the page's inline script hands to uPlot (series against step,
// stacked phase bars, event marks), built here so that the page only draws. Values are rounded to
// 6 significant digits (the hover text shows at most 4 decimals or 4 digits), NaN and ±Infinity
// become null (a gap in the line, and a red mark at their step), and each series is sorted by step
// with one value a step (uPlot wants ascending x; a resumed run can log a step twice: the last wins).
import { linearScale, minOf, wantsLog } from './scale.ts';

/** How a value reads on hover; the page's script formats as format.ts does (fmtLoss, fmtPct, ...). */
export type ValueFormat = 'loss' | 'pct' | 'int' | 'sig3' | 'sig4';

export interface Point {
  x: number;
  y: number; // NaN / Infinity: left out, and reported
}

export interface Series {
  name: string;
  color: string;
  points: Point[];
  style: 'line' | 'points';
  width?: number;
  opacity?: number;
  dash?: number[];
  format?: ValueFormat;
  /** Computed from another series (smoothed): its NaN/Inf points are that series', not reported twice. */
  derived?: boolean;
}

export interface Marker {
  x: number;
  label: string; // shown when the cursor is on it
  color: string;
  legend: string; // legend entry shared by markers of one kind
}

export interface LineSpec {
  yLabel: string;
  series: Series[];
  xMax: number;
  yScale?: 'linear' | 'log' | 'auto';
  logRatio?: number; // 'auto': log when max/min reaches this (default 20)
  includeZero?: boolean;
  clamp?: [number, number];
  yFormat?: 'number' | 'percent';
  markers?: Marker[];
  emptyText?: string;
}

/** One series as the page gets it: its steps and values (null where NaN/Inf), in step order. */
export interface PlotSeries {
  name: string;
  color: string;
  style: 'line' | 'points';
  width: number;
  opacity?: number;
  dash?: number[];
  format: ValueFormat;
  x: number[];
  y: (number | null)[];
}

/** A vertical dashed line at a step: an event, or a step whose values were NaN/Inf (red). */
export interface Mark {
  x: number;
  color: string;
  label: string;
}

export interface LegendMark {
  name: string;
  color: string;
}

export interface LinePlot {
  kind: 'line';
  yLabel: string;
  xMax: number;
  log: boolean;
  percent: boolean;
  includeZero: boolean;
  clamp: [number, number] | null;
  series: PlotSeries[];
  marks: Mark[];
  /** Legend entries of the marks, one per kind (drawn by the page next to uPlot's legend). */
  markLegend: LegendMark[];
  /** Nothing to draw: the message shown in the chart's place. */
  empty: string | null;
}

export interface LineResult {
  plot: LinePlot;
  /** Points left out because their value is NaN or infinite. */
  dropped: { series: string; x: number; y: number }[];
}

export const NAN_COLOR = '#dc2626';

/** 6 significant digits: enough for every hover text, and half the bytes of a double's 17. */
export function round6(v: number): number {
  return Number(v.toPrecision(6));
}

/** A series' points sorted by step, one per step (the last logged), NaN/Inf as null. */
export function seriesColumns(points: Point[]): { x: number[]; y: (number | null)[] } {
  const byStep = new Map<number, number | null>();
  for (const p of points) if (Number.isFinite(p.x)) byStep.set(p.x, Number.isFinite(p.y) ? round6(p.y) : null);
  const x = [...byStep.keys()].sort((a, b) => a - b);
  return { x, y: x.map((s) => byStep.get(s)!) };
}

/** The NaN/Inf values of the series (not of derived ones), for the notes and the red marks. */
function droppedPoints(series: Series[]): LineResult['dropped'] {
  const dropped: LineResult['dropped'] = [];
  for (const s of series) {
    if (s.derived) continue;
    for (const p of s.points) if (!Number.isFinite(p.y) && Number.isFinite(p.x)) dropped.push({ series: s.name, x: p.x, y: p.y });
  }
  return dropped;
}

/** A red mark at each step with a NaN/Inf value, saying which series had what. */
function nanMarks(dropped: LineResult['dropped']): Mark[] {
  const steps = [...new Set(dropped.map((d) => d.x))];
  return steps.map((step) => {
    const what = dropped
      .filter((d) => d.x === step)
      .map((d) => `${d.series} ${Number.isNaN(d.y) ? 'NaN' : 'infinite'}`)
      .join(', ');
    return { x: step, color: NAN_COLOR, label: `step ${step}: ${what} (left out)` };
  });
}

export function linePlot(spec: LineSpec): LineResult {
  const dropped = droppedPoints(spec.series);
  const marks = nanMarks(dropped);
  const ys = spec.series.flatMap((s) => s.points.filter((p) => Number.isFinite(p.y) && Number.isFinite(p.x)).map((p) => p.y));
  const markers = (spec.markers ?? []).filter((m) => Number.isFinite(m.x));
  const markLegend: LegendMark[] = [];
  for (const m of markers) if (!markLegend.some((l) => l.name === m.legend)) markLegend.push({ name: m.legend, color: m.color });
  if (marks.length) markLegend.push({ name: `NaN/Inf, left out (${marks.length} step${marks.length === 1 ? '' : 's'})`, color: NAN_COLOR });
  const useLog = ys.length > 0 && (spec.yScale === 'log' ? minOf(ys) > 0 : spec.yScale === 'auto' ? wantsLog(ys, spec.logRatio) : false);
  const plot: LinePlot = {
    kind: 'line',
    yLabel: useLog ? `${spec.yLabel} (log)` : spec.yLabel,
    xMax: spec.xMax > 0 ? spec.xMax : 1,
    log: useLog,
    percent: spec.yFormat === 'percent',
    includeZero: spec.includeZero ?? false,
    clamp: spec.clamp ?? null,
    series: spec.series
      .filter((s) => s.points.length)
      .map((s) => ({
        name: s.name,
        color: s.color,
        style: s.style,
        width: s.width ?? 2,
        ...(s.opacity !== undefined ? { opacity: s.opacity } : {}),
        ...(s.dash ? { dash: s.dash } : {}),
        format: s.format ?? 'sig4',
        ...seriesColumns(s.points),
      })),
    marks: [...markers.map((m) => ({ x: m.x, color: m.color, label: m.label })), ...marks],
    markLegend,
    empty: ys.length ? null : dropped.length ? 'every value is NaN or infinite' : (spec.emptyText ?? 'no data'),
  };
  return { plot, dropped };
}

export interface StackLayer {
  name: string;
  color: string;
  values: number[]; // one per bar; negative counts as 0
}

export interface BarSpec {
  yLabel: string;
  /** Each bar spans (start, end]: the steps a metrics line averages over. */
  spans: { start: number; end: number }[];
  layers: StackLayer[];
  /** A line over the bars through one value per bar (e.g. the fastest worker's compute). */
  overlay?: { name: string; color: string; values: number[]; dash?: number[]; width?: number };
  xMax: number;
  emptyText?: string;
}

export interface BarPlot {
  kind: 'bars';
  yLabel: string;
  xMax: number;
  /** [start, end] of each bar: it averages steps start+1 .. end, logged at end. */
  spans: [number, number][];
  /** Each layer's value of each bar as logged (ms; the page draws a negative as 0), null for NaN/Inf. */
  layers: { name: string; color: string; values: (number | null)[] }[];
  overlay: { name: string; color: string; values: (number | null)[]; dash: number[]; width: number } | null;
  /** Top of the axis: the tallest bar, or where the axis is cut. */
  yMax: number;
  /** Bars taller than this are cut (a warm-up step an order of magnitude longer); null: none. */
  cappedAt: number | null;
  empty: string | null;
}

export interface BarResult {
  plot: BarPlot;
  cappedAt: number | null;
  negativeOther: number; // bars where a layer was negative and drawn as 0
}

const cell = (v: number | undefined): number | null => (v !== undefined && Number.isFinite(v) ? round6(v) : null);

export function barPlot(spec: BarSpec): BarResult {
  const value = (l: StackLayer, i: number) => (Number.isFinite(l.values[i]) ? Math.max(0, l.values[i]!) : NaN);
  const valid = spec.spans.map((_, i) => spec.layers.every((l) => Number.isFinite(value(l, i))));
  const totals = spec.spans.map((_, i) => spec.layers.reduce((a, l) => a + (value(l, i) || 0), 0)).filter((_, i) => valid[i]);
  let negativeOther = 0;
  spec.spans.forEach((_, i) => {
    if (spec.layers.some((l) => l.values[i]! < 0)) negativeOther++;
  });
  // One warm-up line can be 10x the rest; cut it rather than flatten every other bar.
  const sorted = [...totals].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
  const max = sorted[sorted.length - 1] ?? 0;
  const cap = sorted.length >= 5 && max > 2.5 * p95 ? p95 * 1.25 : null;
  const overlayVals = (spec.overlay?.values ?? []).filter(Number.isFinite);
  const top = totals.length ? linearScale([0, cap ?? max, ...(cap ? [] : overlayVals)], { includeZero: true, target: 5 }).domain[1] : 1;
  const plot: BarPlot = {
    kind: 'bars',
    yLabel: spec.yLabel,
    xMax: spec.xMax > 0 ? spec.xMax : 1,
    spans: spec.spans.map((s) => [s.start, s.end]),
    layers: spec.layers.map((l) => ({ name: l.name, color: l.color, values: spec.spans.map((_, i) => cell(l.values[i])) })),
    overlay: spec.overlay
      ? {
          name: spec.overlay.name,
          color: spec.overlay.color,
          values: spec.spans.map((_, i) => cell(spec.overlay!.values[i])),
          dash: spec.overlay.dash ?? [4, 3],
          width: spec.overlay.width ?? 1.5,
        }
      : null,
    yMax: top,
    cappedAt: cap === null ? null : round6(cap),
    empty: totals.length ? null : (spec.emptyText ?? 'no timing data'),
  };
  return { plot, cappedAt: cap, negativeOther };
}
