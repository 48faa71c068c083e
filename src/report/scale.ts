// Axis arithmetic for the report's charts: nice tick steps, linear and log scales.

/** A tick spacing of 1, 2 or 5 times a power of ten giving about `target` intervals. */
export function niceStep(range: number, target = 5): number {
  if (!(range > 0) || !Number.isFinite(range)) return 1;
  const raw = range / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * mag;
}

/** Ticks k*step inside [lo, hi], computed without accumulating floating-point error. */
export function ticksIn(lo: number, hi: number, step: number): number[] {
  const out: number[] = [];
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  for (let k = first; k <= last && out.length < 1000; k++) out.push(Number((k * step).toPrecision(12)));
  return out;
}

export interface Scale {
  kind: 'linear' | 'log';
  domain: [number, number];
  ticks: number[];
  step: number; // linear tick spacing (log: the smallest gap between ticks), for labels
  /** 0 at domain[0], 1 at domain[1] */
  norm(v: number): number;
}

export function linearScale(values: number[], opts: { includeZero?: boolean; clamp?: [number, number]; target?: number } = {}): Scale {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (!values.length) [lo, hi] = [0, 1];
  if (opts.includeZero) {
    lo = Math.min(lo, 0);
    hi = Math.max(hi, 0);
  }
  if (lo === hi) {
    const pad = Math.abs(lo) * 0.1 || 1;
    lo -= pad;
    hi += pad;
    if (opts.includeZero && values.every((v) => v >= 0)) lo = 0;
  }
  // Headroom, so a line along the maximum does not run on the frame.
  hi += (hi - lo) * 0.04;
  if (lo < 0 && !(opts.includeZero && values.every((v) => v >= 0))) lo -= (hi - lo) * 0.04;
  const step = niceStep(hi - lo, opts.target ?? 5);
  lo = Math.floor(lo / step + 1e-9) * step;
  hi = Math.ceil(hi / step - 1e-9) * step;
  if (opts.clamp) {
    lo = Math.max(lo, opts.clamp[0]);
    hi = Math.min(hi, opts.clamp[1]);
  }
  const [a, b] = [lo, hi];
  return { kind: 'linear', domain: [a, b], ticks: ticksIn(a, b, step), step, norm: (v) => (v - a) / (b - a) };
}

/** An x axis from 0 to `max` exactly (steps), with nice ticks inside. */
export function stepScale(max: number, target = 6): Scale {
  const hi = max > 0 ? max : 1;
  const step = Math.max(1, niceStep(hi, target));
  return { kind: 'linear', domain: [0, hi], ticks: ticksIn(0, hi, step), step, norm: (v) => v / hi };
}

export function logScale(values: number[]): Scale {
  const lmin = Math.log10(Math.min(...values));
  const lmax = Math.log10(Math.max(...values));
  const pad = Math.max(0.04, (lmax - lmin) * 0.05);
  const a = lmin - pad;
  const b = lmax + pad;
  const inside = (v: number) => {
    const l = Math.log10(v);
    return l >= a - 1e-9 && l <= b + 1e-9;
  };
  let ticks: number[] = [];
  for (const mults of [[1], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    const t: number[] = [];
    for (let e = Math.floor(a); e <= Math.ceil(b); e++) for (const m of mults) t.push(Number((m * 10 ** e).toPrecision(12)));
    ticks = t.filter(inside);
    if (ticks.length >= 3) break;
  }
  // Too many (a long span with 1-2-5): keep powers of ten only, thinned to at most 7.
  if (ticks.length > 8) {
    const powers = ticks.filter((t) => Number.isInteger(Math.log10(t)) || Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9);
    const every = Math.ceil(powers.length / 7);
    ticks = powers.filter((_, i) => i % every === 0);
  }
  const step = ticks.length > 1 ? Math.min(...ticks.slice(1).map((t, i) => t - ticks[i]!)) : (ticks[0] ?? 1);
  return { kind: 'log', domain: [10 ** a, 10 ** b], ticks, step, norm: (v) => (Math.log10(v) - a) / (b - a) };
}

/** Log when every value is positive and they span a factor of `ratio` or more. */
export function wantsLog(values: number[], ratio = 20): boolean {
  if (values.length < 2 || values.some((v) => !(v > 0))) return false;
  return Math.max(...values) / Math.min(...values) >= ratio;
}
