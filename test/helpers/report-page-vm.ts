// Runs report.html's chart script (page-script.ts) in node:vm against stand-ins: a document that
// holds the data block and one .plot element per chart, and a uPlot that records what it is
// built with. What the script hands uPlot (series, formats, aligned data, hooks) can then be
// checked, and its draw hooks run on a canvas stand-in that records the rectangles filled.
import vm from 'node:vm';
import { PAGE_SCRIPT } from '../../src/report/page-script.ts';

export interface Built {
  opts: {
    series: { label: string; value: (u: unknown, v: number | null | undefined, si?: number, i?: number | null) => string }[];
    hooks: { draw?: ((u: unknown) => void)[] };
    scales: Record<string, unknown>;
  };
  data: unknown[][];
  el: { id: string };
}

export interface PageApi {
  plots: { u: Built }[];
  formats: Record<string, (v: number) => string>;
  fmtTick: (v: number, step: number) => string;
}

/** Runs the script on `json` (the data block's text) for the chart ids given; returns what it built. */
export function runPageScript(json: string, ids: string[]): { built: Built[]; api: PageApi } {
  const built: Built[] = [];
  const plotEl = (id: string) => ({ id, clientWidth: 600, getAttribute: () => '280' });
  const document = {
    getElementById: (id: string) => (id === 'report-data' ? { textContent: json } : null),
    querySelector: (sel: string) => {
      const m = /^#chart-([a-z-]+) \.(plot|mark-tip)$/.exec(sel);
      if (!m || !ids.includes(m[1]!)) return null;
      return m[2] === 'plot' ? plotEl(m[1]!) : { textContent: '' };
    },
  };
  function uPlot(this: Built, opts: Built['opts'], data: unknown[][], el: { id: string }) {
    this.opts = opts;
    this.data = data;
    this.el = el;
    built.push(this);
  }
  (uPlot as unknown as { pxRatio: number }).pxRatio = 1;
  const window: Record<string, unknown> = { addEventListener: () => {} };
  const context = vm.createContext({ document, uPlot, window, requestAnimationFrame: () => 0, Set, Map, Math, Number, String, JSON, Array, isFinite });
  vm.runInContext(PAGE_SCRIPT, context);
  return { built, api: window.mgpuReport as PageApi };
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
  fill: string;
}

/**
 * Runs a chart's draw hooks on a plot box of `width` x 200 canvas pixels at (50, 10), x from 0 to
 * `xMax` and y from 0 to `yMax`; returns the rectangles filled, in order.
 */
export function drawOn(b: Built, xMax: number, yMax: number, width = 1000): Rect[] {
  const rects: Rect[] = [];
  const bbox = { left: 50, top: 10, width, height: 200 };
  const ctx = {
    fillStyle: '',
    fillRect(x: number, y: number, w: number, h: number) {
      rects.push({ x, y, w, h, fill: this.fillStyle });
    },
    save() {},
    restore() {},
    beginPath() {},
    rect() {},
    clip() {},
    moveTo() {},
    lineTo() {},
    stroke() {},
    fill() {},
    arc() {},
    setLineDash() {},
  };
  const u = {
    ctx,
    bbox,
    series: b.opts.series.map(() => ({ show: true })),
    cursor: { left: -10 },
    valToPos: (v: number, scale: string) => (scale === 'x' ? bbox.left + (v / xMax) * bbox.width : bbox.top + bbox.height - (v / yMax) * bbox.height),
  };
  for (const hook of b.opts.hooks.draw ?? []) hook(u);
  return rects;
}
