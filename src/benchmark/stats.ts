// The figures of a series of per-step rates, as tf_cnn_benchmarks prints them: the mean, `+/-`
// its standard error (the population standard deviation over sqrt(n)), and the jitter, 1.4826 x
// the median absolute deviation (a standard deviation that one slow step does not move).

export interface RateFigures {
  mean: number;
  stderr: number;
  jitter: number;
  median: number;
  min: number;
  max: number;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function rateFigures(rates: readonly number[]): RateFigures {
  const m = mean(rates);
  const sd = Math.sqrt(mean(rates.map((r) => (r - m) ** 2)));
  const mid = median(rates);
  return {
    mean: m,
    stderr: sd / Math.sqrt(rates.length),
    jitter: 1.4826 * median(rates.map((r) => Math.abs(r - mid))),
    median: mid,
    min: Math.min(...rates),
    max: Math.max(...rates),
  };
}
