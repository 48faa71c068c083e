// How the eval output of `train` and `mgpu-train eval` prints the config's metrics.

/** The label a metric key prints under: `top_k` as `top-5` (`top_k.<output>` as `top-5.<output>`), the others as logged. */
export function metricLabel(key: string, k: number): string {
  return key === 'top_k' ? `top-${k}` : key.startsWith('top_k.') ? `top-${k}${key.slice(5)}` : key;
}

/** An accuracy (printed as a percentage): accuracy and top_k, and their `.<output>` forms. */
const PERCENT = /^(accuracy|top_k)(\.|$)/;

/**
 * Accuracies as percentages (as the shipped eval output prints them); the rest with `digits`
 * decimals (train's line 4, `mgpu-train eval` 6, as each prints the loss), or in exponent form
 * when tiny or huge. null (undefined, e.g. AUC with one class only) prints as n/a.
 */
export function metricValue(key: string, v: number | null, digits = 4): string {
  if (v === null) return 'n/a';
  if (PERCENT.test(key)) return `${(100 * v).toFixed(2)}%`;
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(digits) : v.toFixed(digits);
}

/** `accuracy 70.27% precision_macro 0.6612 auc 0.8123`: one line, for train's eval output. */
export function metricsInline(metrics: Record<string, number | null>, k: number): string {
  return Object.entries(metrics)
    .map(([key, v]) => `${metricLabel(key, k)} ${metricValue(key, v)}`)
    .join(' ');
}
