// Axis arithmetic for the report: nice tick steps, the top of the phase chart's axis, whether a
// series wants a log axis, and min/max of lists too long to spread into Math.min/Math.max.

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

/** The largest value of a list; -Infinity for none (a loop: spreading 100,000 values into Math.max overflows the stack). */
export function maxOf(values: readonly number[]): number {
  let m = -Infinity;
  for (const v of values) if (v > m) m = v;
  return m;
}

/** The smallest value of a list; Infinity for none. */
export function minOf(values: readonly number[]): number {
  let m = Infinity;
  for (const v of values) if (v < m) m = v;
  return m;
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
  let lo = minOf(values);
  let hi = maxOf(values);
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

/** Log when every value is positive and they span a factor of `ratio` or more. */
export function wantsLog(values: number[], ratio = 20): boolean {
  if (values.length < 2 || values.some((v) => !(v > 0))) return false;
  return maxOf(values) / minOf(values) >= ratio;
}
