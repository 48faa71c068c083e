// Number and text formatting shared by the summary table, the HTML page and the charts.

export function nonFinite(v: number): string {
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Inf' : '-Inf';
}

/** A loss: 4 decimals, or 3 significant digits in exponent form when tiny or huge. */
export function fmtLoss(v: number): string {
  if (!Number.isFinite(v)) return nonFinite(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(3);
  return v.toFixed(4);
}

export function fmtPct(fraction: number, digits = 2): string {
  return Number.isFinite(fraction) ? `${(100 * fraction).toFixed(digits)}%` : nonFinite(fraction);
}

export function fmtMs(v: number): string {
  if (!Number.isFinite(v)) return nonFinite(v);
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(2);
}

export function fmtInt(v: number): string {
  return Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : nonFinite(v);
}

/** A learning rate or another small number: up to 3 significant digits, no trailing zeros. */
export function fmtSig(v: number, digits = 3): string {
  if (!Number.isFinite(v)) return nonFinite(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e6)
    return v
      .toExponential(digits - 1)
      .replace(/\.?0+e/, 'e')
      .replace('e+', 'e');
  return String(Number(v.toPrecision(digits)));
}

/**
 * An axis tick label: short, and the same style along one axis. `step` is the tick spacing, so
 * 0.1, 0.2, 0.3 print with one decimal and 1000, 2000 as 1k, 2k.
 */
export function fmtTick(v: number, step: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6) return trimZeros((v / 1e6).toFixed(decimalsFor(step / 1e6))) + 'M';
  if (a >= 1e4) return trimZeros((v / 1e3).toFixed(decimalsFor(step / 1e3))) + 'k';
  if (step < 1e-4) return fmtSig(v, 3); // 2e-5, 4e-5: shorter than 0.00002
  return v.toFixed(decimalsFor(step));
}

function decimalsFor(step: number): number {
  if (!(step > 0) || step >= 1) return 0;
  return Math.min(10, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9)));
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/**
 * The formats report.html's page script runs (page-script.ts), as source text: these very
 * functions, which use nothing but each other and the language's built-ins.
 */
export const PAGE_FORMATS = [nonFinite, fmtLoss, fmtPct, fmtInt, fmtSig, decimalsFor, trimZeros, fmtTick].map((f) => f.toString()).join('\n');

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** "5, 10, 15 and 2 more" */
export function listSteps(steps: number[], max = 8): string {
  if (steps.length <= max) return steps.join(', ');
  return `${steps.slice(0, max).join(', ')} and ${steps.length - max} more`;
}
