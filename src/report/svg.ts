// Inline SVG charts for report.html: a line/point chart against step and a stacked bar chart of
// the phase times. Plain strings, no library, nothing external: every chart is one <svg> with its
// axes, tick labels, axis labels and legend inside it, so it reads the same copied out of the page.
import { escapeHtml, fmtSig, fmtTick } from './format.ts';
import { linearScale, logScale, stepScale, wantsLog, type Scale } from './scale.ts';

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
  dash?: string;
  /** Tooltip text of a value. */
  format?: (v: number) => string;
  /** Not in the legend (e.g. a faint raw line under its smoothed version). */
  hideLegend?: boolean;
  /** Computed from another series (smoothed): its NaN/Inf points are that series', not reported twice. */
  derived?: boolean;
}

export interface Marker {
  x: number;
  label: string; // tooltip
  color: string;
  legend: string; // legend entry shared by markers of one kind
}

export interface LineChartSpec {
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
  width?: number;
  height?: number;
}

export interface ChartResult {
  svg: string;
  /** Points left out because their value is NaN or infinite. */
  dropped: { series: string; x: number; y: number }[];
}

const FONT = 12;
const r1 = (v: number) => Math.round(v * 10) / 10;
/** Approximate width of a label in the page's sans-serif at 12px. */
const textWidth = (s: string, size = FONT) => s.length * size * 0.56;

interface Frame {
  W: number;
  H: number;
  left: number;
  top: number;
  plotW: number;
  plotH: number;
}

interface LegendItem {
  name: string;
  color: string;
  kind: 'line' | 'points' | 'swatch' | 'marker' | 'dashed';
}

/** Legend rows laid out left to right in the top margin; returns the svg and the height used. */
function legend(items: LegendItem[], x0: number, maxW: number): { svg: string; height: number } {
  if (!items.length) return { svg: '', height: 8 };
  const rowH = 18;
  let x = x0;
  let y = 14;
  const parts: string[] = [];
  for (const it of items) {
    const w = 22 + textWidth(it.name) + 16;
    if (x > x0 && x + w > x0 + maxW) {
      x = x0;
      y += rowH;
    }
    const cy = y - 4;
    const c = escapeHtml(it.color);
    if (it.kind === 'line')
      parts.push(`<line x1="${r1(x)}" y1="${cy}" x2="${r1(x + 16)}" y2="${cy}" stroke="${c}" stroke-width="2.5" stroke-linecap="round"/>`);
    else if (it.kind === 'dashed')
      parts.push(`<line x1="${r1(x)}" y1="${cy}" x2="${r1(x + 16)}" y2="${cy}" stroke="${c}" stroke-width="2" stroke-dasharray="4 3"/>`);
    else if (it.kind === 'points') parts.push(`<circle cx="${r1(x + 8)}" cy="${cy}" r="4" fill="${c}" stroke="#fff" stroke-width="1.5"/>`);
    else if (it.kind === 'marker')
      parts.push(`<line x1="${r1(x + 8)}" y1="${cy - 6}" x2="${r1(x + 8)}" y2="${cy + 6}" stroke="${c}" stroke-width="2" stroke-dasharray="3 2"/>`);
    else parts.push(`<rect x="${r1(x + 2)}" y="${cy - 6}" width="12" height="12" rx="2" fill="${c}"/>`);
    parts.push(`<text x="${r1(x + 22)}" y="${y}" class="legend">${escapeHtml(it.name)}</text>`);
    x += w;
  }
  return { svg: `<g class="legend">${parts.join('')}</g>`, height: y + 10 };
}

function frame(W: number, H: number, legendH: number, left: number): Frame {
  const top = Math.max(legendH + 8, 16);
  const bottom = 40;
  const right = 18;
  return { W, H, left, top, plotW: W - left - right, plotH: H - top - bottom };
}

function tickLabel(scale: Scale, v: number, percent: boolean): string {
  if (percent) return `${Number((v * 100).toFixed(Math.max(0, Math.ceil(-Math.log10(scale.step * 100) - 1e-9))))}%`;
  if (scale.kind === 'log') return Math.abs(v) >= 1e4 ? fmtTick(v, v) : fmtSig(v, 2);
  return fmtTick(v, scale.step);
}

/** Grid, axes, tick labels and the axis titles. */
function axes(f: Frame, xs: Scale, ys: Scale, yLabel: string, percent: boolean): string {
  const { left, top, plotW, plotH } = f;
  const bottom = top + plotH;
  const out: string[] = [];
  for (const t of ys.ticks) {
    const y = r1(bottom - ys.norm(t) * plotH);
    out.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" class="grid"/>`);
    out.push(`<text x="${left - 7}" y="${r1(y + 4)}" text-anchor="end" class="tick">${escapeHtml(tickLabel(ys, t, percent))}</text>`);
  }
  for (const t of xs.ticks) {
    const x = r1(left + xs.norm(t) * plotW);
    out.push(`<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 5}" class="axis"/>`);
    out.push(`<text x="${x}" y="${bottom + 18}" text-anchor="middle" class="tick">${escapeHtml(fmtTick(t, xs.step))}</text>`);
  }
  out.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" class="axis"/>`);
  out.push(`<line x1="${left}" y1="${bottom}" x2="${left + plotW}" y2="${bottom}" class="axis"/>`);
  out.push(`<text x="${r1(left + plotW / 2)}" y="${f.H - 5}" text-anchor="middle" class="axis-label">step</text>`);
  out.push(`<text transform="translate(14 ${r1(top + plotH / 2)}) rotate(-90)" text-anchor="middle" class="axis-label">${escapeHtml(yLabel)}</text>`);
  return out.join('');
}

/** Room for the y tick labels: the widest label plus the rotated axis title. */
function leftMargin(labels: string[]): number {
  return Math.max(52, Math.ceil(Math.max(0, ...labels.map((l) => textWidth(l)))) + 34);
}

function svgOpen(W: number, H: number, label: string): string {
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(label)}" preserveAspectRatio="xMidYMid meet">`;
}

/** Axes and a message; `marks`: steps whose values were all NaN/Inf, drawn as red dashed lines. */
function emptyChart(W: number, H: number, yLabel: string, xMax: number, text: string, marks: number[] = []): string {
  const f = frame(W, H, 8, 52);
  const xs = stepScale(xMax);
  const ys = linearScale([0, 1]);
  ys.ticks = [];
  const lines = marks
    .map((m) => {
      const x = r1(f.left + Math.min(1, Math.max(0, xs.norm(m))) * f.plotW);
      return `<line x1="${x}" y1="${f.top}" x2="${x}" y2="${f.top + f.plotH}" stroke="#dc2626" stroke-width="1.5" stroke-dasharray="3 2"><title>step ${m}: NaN or infinite</title></line>`;
    })
    .join('');
  return (
    svgOpen(W, H, yLabel) +
    axes(f, xs, ys, yLabel, false) +
    lines +
    `<text x="${r1(f.left + f.plotW / 2)}" y="${r1(f.top + f.plotH / 2)}" text-anchor="middle" class="empty">${escapeHtml(text)}</text></svg>`
  );
}

export function lineChart(spec: LineChartSpec): ChartResult {
  const W = spec.width ?? 600;
  const H = spec.height ?? 300;
  const percent = spec.yFormat === 'percent';
  const dropped: ChartResult['dropped'] = [];
  for (const s of spec.series) {
    if (s.derived) continue;
    for (const p of s.points) if (!Number.isFinite(p.y) && Number.isFinite(p.x)) dropped.push({ series: s.name, x: p.x, y: p.y });
  }
  const droppedSteps = [...new Set(dropped.map((d) => d.x))];
  const ys = spec.series.flatMap((s) => s.points.filter((p) => Number.isFinite(p.y) && Number.isFinite(p.x)).map((p) => p.y));
  if (ys.length === 0) {
    const text = dropped.length ? 'every value is NaN or infinite' : (spec.emptyText ?? 'no data');
    return { svg: emptyChart(W, H, spec.yLabel, spec.xMax, text, droppedSteps), dropped };
  }

  const useLog = spec.yScale === 'log' ? ys.every((v) => v > 0) : spec.yScale === 'auto' ? wantsLog(ys, spec.logRatio) : false;
  const yScale = useLog ? logScale(ys) : linearScale(ys, { includeZero: spec.includeZero, clamp: spec.clamp });
  const xScale = stepScale(spec.xMax);
  const yLabel = useLog ? `${spec.yLabel} (log)` : spec.yLabel;

  const items: LegendItem[] = spec.series
    .filter((s) => !s.hideLegend && s.points.length)
    .map((s) => ({
      name: s.name,
      color: s.color,
      kind: s.style === 'points' ? 'points' : s.dash ? 'dashed' : 'line',
    }));
  const markers = spec.markers ?? [];
  for (const m of markers) if (!items.some((i) => i.name === m.legend)) items.push({ name: m.legend, color: m.color, kind: 'marker' });
  if (dropped.length)
    items.push({ name: `NaN/Inf, left out (${droppedSteps.length} step${droppedSteps.length === 1 ? '' : 's'})`, color: '#dc2626', kind: 'marker' });

  const left = leftMargin(yScale.ticks.map((t) => tickLabel(yScale, t, percent)));
  const lg = legend(items, left, W - left - 18);
  const f = frame(W, H, lg.height, left);
  const X = (x: number) => r1(f.left + Math.min(1, Math.max(0, xScale.norm(x))) * f.plotW);
  const Y = (y: number) => r1(f.top + f.plotH - Math.min(1, Math.max(0, yScale.norm(y))) * f.plotH);
  const ok = (p: Point) => Number.isFinite(p.x) && Number.isFinite(p.y) && (yScale.kind === 'linear' || p.y > 0);

  const body: string[] = [];
  // Event markers: vertical dashed lines behind the data.
  for (const m of markers) {
    if (!Number.isFinite(m.x)) continue;
    const x = X(m.x);
    body.push(
      `<line x1="${x}" y1="${f.top}" x2="${x}" y2="${f.top + f.plotH}" stroke="${escapeHtml(m.color)}" stroke-width="1.5" stroke-dasharray="3 2" opacity="0.8"><title>${escapeHtml(m.label)}</title></line>`,
    );
  }
  for (const step of droppedSteps) {
    const x = X(step);
    const what = dropped
      .filter((d) => d.x === step)
      .map((d) => `${d.series} ${Number.isNaN(d.y) ? 'NaN' : 'infinite'}`)
      .join(', ');
    body.push(
      `<line x1="${x}" y1="${f.top}" x2="${x}" y2="${f.top + f.plotH}" stroke="#dc2626" stroke-width="1.5" stroke-dasharray="3 2"><title>${escapeHtml(`step ${step}: ${what} (left out)`)}</title></line>`,
    );
    body.push(`<path d="M${r1(x - 4)} ${f.top - 1}h8l-4 7z" fill="#dc2626"/>`);
  }
  for (const s of spec.series) {
    const color = escapeHtml(s.color);
    const fmt = s.format ?? ((v: number) => fmtSig(v, 4));
    const finitePts = s.points.filter(ok);
    if (s.style === 'line') {
      // A NaN/Inf point breaks the line: one polyline per finite run.
      const runs: Point[][] = [[]];
      for (const p of s.points) {
        if (ok(p)) runs[runs.length - 1]!.push(p);
        else if (runs[runs.length - 1]!.length) runs.push([]);
      }
      for (const run of runs) {
        if (run.length >= 2) {
          body.push(
            `<polyline points="${run.map((p) => `${X(p.x)},${Y(p.y)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="${s.width ?? 2}" stroke-linejoin="round" stroke-linecap="round"${s.opacity !== undefined ? ` opacity="${s.opacity}"` : ''}${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
          );
        }
      }
      const dots = finitePts.length <= 30 || runs.some((r) => r.length === 1);
      if (!s.hideLegend) {
        for (const p of finitePts) {
          const lone = runs.some((r) => r.length === 1 && r[0] === p);
          const visible = dots || lone;
          body.push(
            `<circle cx="${X(p.x)}" cy="${Y(p.y)}" r="${lone ? 4.5 : visible ? 3 : 5}" fill="${visible ? color : 'transparent'}"${visible ? ' stroke="#fff" stroke-width="1"' : ''}><title>${escapeHtml(`${s.name}, step ${p.x}: ${fmt(p.y)}`)}</title></circle>`,
          );
        }
      }
    } else {
      for (const p of finitePts) {
        body.push(
          `<circle cx="${X(p.x)}" cy="${Y(p.y)}" r="4.5" fill="${color}" stroke="#fff" stroke-width="1.5"><title>${escapeHtml(`${s.name}, step ${p.x}: ${fmt(p.y)}`)}</title></circle>`,
        );
      }
    }
  }
  const svg = svgOpen(W, H, spec.yLabel) + lg.svg + axes(f, xScale, yScale, yLabel, percent) + `<g class="data">${body.join('')}</g></svg>`;
  return { svg, dropped };
}

export interface StackLayer {
  name: string;
  color: string;
  values: number[]; // one per bar; negative counts as 0
}

export interface StackedSpec {
  yLabel: string;
  /** Each bar spans (start, end]: the steps a metrics line averages over. */
  spans: { start: number; end: number }[];
  layers: StackLayer[];
  /** A line drawn over the bars through one value per bar, at the bar's centre (e.g. the fastest worker's compute). */
  overlay?: { name: string; color: string; values: number[]; dash?: string; width?: number };
  xMax: number;
  width?: number;
  height?: number;
  emptyText?: string;
}

export interface StackedResult {
  svg: string;
  cappedAt: number | null; // bars taller than this are cut (a warm-up step an order of magnitude longer)
  negativeOther: number; // bars where a layer was negative and drawn as 0
}

export function stackedBarChart(spec: StackedSpec): StackedResult {
  const W = spec.width ?? 1200;
  const H = spec.height ?? 320;
  const value = (l: StackLayer, i: number) => (Number.isFinite(l.values[i]) ? Math.max(0, l.values[i]!) : NaN);
  const valid = spec.spans.map((_, i) => spec.layers.every((l) => Number.isFinite(value(l, i))));
  const totals = spec.spans.map((_, i) => spec.layers.reduce((a, l) => a + (value(l, i) || 0), 0)).filter((_, i) => valid[i]);
  let negativeOther = 0;
  spec.spans.forEach((_, i) => {
    if (spec.layers.some((l) => l.values[i]! < 0)) negativeOther++;
  });
  if (!totals.length) return { svg: emptyChart(W, H, spec.yLabel, spec.xMax, spec.emptyText ?? 'no timing data'), cappedAt: null, negativeOther };

  // One warm-up line can be 10x the rest; cut it rather than flatten every other bar.
  const sorted = [...totals].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
  const max = sorted[sorted.length - 1]!;
  const cap = sorted.length >= 5 && max > 2.5 * p95 ? p95 * 1.25 : null;
  const overlayVals = (spec.overlay?.values ?? []).filter(Number.isFinite);
  const yScale = linearScale([0, cap ?? max, ...(cap ? [] : overlayVals)], { includeZero: true, target: 5 });
  const xScale = stepScale(spec.xMax);

  const items: LegendItem[] = spec.layers.map((l) => ({ name: l.name, color: l.color, kind: 'swatch' }));
  if (spec.overlay) items.push({ name: spec.overlay.name, color: spec.overlay.color, kind: 'dashed' });
  const left = leftMargin(yScale.ticks.map((t) => tickLabel(yScale, t, false)));
  const lg = legend(items, left, W - left - 18);
  const f = frame(W, H, lg.height, left);
  const X = (x: number) => f.left + Math.min(1, Math.max(0, xScale.norm(x))) * f.plotW;
  const Y = (y: number) => f.top + f.plotH - Math.min(1, Math.max(0, yScale.norm(y))) * f.plotH;

  // A bar spans the steps its line averages; one or two lines would make a slab, so a bar is at
  // most 48 px wide and then ends at the step its line was logged at, the x where the other charts
  // put that line's point.
  const bars = spec.spans.map((span) => {
    const x1 = X(span.end);
    return { x0: Math.max(X(span.start), x1 - 48), x1 };
  });
  const body: string[] = [];
  spec.spans.forEach((span, i) => {
    if (!valid[i]) return;
    const { x0, x1 } = bars[i]!;
    const gap = x1 - x0 >= 6 ? 1 : 0;
    let acc = 0;
    const tip =
      `${span.end - span.start > 1 ? `steps ${span.start + 1}-${span.end}` : `step ${span.end}`}: ` +
      spec.layers.map((l) => `${l.name} ${fmtSig(l.values[i]!, 3)} ms`).join(', ');
    const rects: string[] = [];
    for (const l of spec.layers) {
      const v = value(l, i);
      const ya = Y(acc);
      const yb = Y(acc + v);
      acc += v;
      if (ya - yb < 0.05) continue;
      rects.push(
        `<rect x="${r1(x0 + gap / 2)}" y="${r1(yb)}" width="${r1(Math.max(0.5, x1 - x0 - gap))}" height="${r1(ya - yb)}" fill="${escapeHtml(l.color)}"/>`,
      );
    }
    if (cap !== null && acc > cap) rects.push(`<path d="M${r1((x0 + x1) / 2 - 4)} ${r1(f.top + 7)}l4 -6l4 6z" fill="#111827"/>`);
    body.push(`<g><title>${escapeHtml(tip)}</title>${rects.join('')}</g>`);
  });
  if (spec.overlay) {
    const pts = spec.overlay.values.map((y, i) => ({ x: (bars[i]!.x0 + bars[i]!.x1) / 2, y })).filter((p) => Number.isFinite(p.y));
    if (pts.length >= 2) {
      body.push(
        `<polyline points="${pts.map((p) => `${r1(p.x)},${r1(Y(p.y))}`).join(' ')}" fill="none" stroke="${escapeHtml(spec.overlay.color)}" stroke-width="${spec.overlay.width ?? 1.5}" stroke-dasharray="${spec.overlay.dash ?? '4 3'}"/>`,
      );
    } else if (pts.length === 1) {
      body.push(`<circle cx="${r1(pts[0]!.x)}" cy="${r1(Y(pts[0]!.y))}" r="3" fill="${escapeHtml(spec.overlay.color)}"/>`);
    }
  }
  const svg = svgOpen(W, H, spec.yLabel) + lg.svg + axes(f, xScale, yScale, spec.yLabel, false) + `<g class="data">${body.join('')}</g></svg>`;
  return { svg, cappedAt: cap, negativeOther };
}
