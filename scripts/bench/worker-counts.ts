// The worker counts a scaling benchmark runs through (--workers, --max-workers).
/**
 * The worker counts a scaling table runs: `--workers 1,2,4,8` when given (each from 1 up, at most
 * `max`), else every count from `from` to `max`.
 */
export function workerCounts(list: string | undefined, max: number, from = 1): number[] {
  if (list === undefined) return Array.from({ length: Math.max(0, max - from + 1) }, (_, i) => from + i);
  const tokens = list.split(',').map((v) => v.trim());
  const bad = tokens.find((v) => !/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max);
  if (bad !== undefined) throw new Error(`--workers ${list}: '${bad}' is not a whole number from 1 to --max-workers (${max})`);
  const counts = tokens.map(Number);
  return [...new Set(counts)].filter((n) => n >= from).sort((a, b) => a - b);
}
