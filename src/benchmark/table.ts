// The benchmark's tables as text: the rates (tf_cnn_benchmarks's images/sec: X +/- Y (jitter =
// Z)), where a step's time goes, and the largest kernels of the profiled step.
import { plural } from '../coordinator/console/progress.ts';
import { fmtMs } from '../report/format.ts';
import type { BenchmarkReport } from './report.ts';

const stepsText = (warmup: number, steps: number) => `${plural(warmup, 'warm-up step')}, then ${steps} measured`;

/** The line that starts the plain baseline. */
export const plainLine = (warmup: number, steps: number) => `plain tfjs, 1 process: ${stepsText(warmup, steps)}`;

/** The line that starts a worker count. */
export const countLine = (workers: number, globalBatch: number, warmup: number, steps: number) =>
  `mgpu-train, ${plural(workers, 'worker')} (global batch ${globalBatch}): ${stepsText(warmup, steps)}`;

/** Rows of cells as aligned columns, the first left-aligned, the others right-aligned. */
export function columns(head: string[], rows: string[][]): string[] {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join('  ');
  return [line(head), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

const rate = (v: number) => (v >= 100 ? v.toFixed(1) : v.toPrecision(3));
const pct = (v: number | null) => (v === null ? '-' : `${(100 * v).toFixed(0)}%`);

export function benchmarkTables(r: BenchmarkReport): string[] {
  const out = [
    `mgpu-train benchmark: ${r.subject.what}; data: ${r.subject.data}`,
    `batch ${r.batchPerWorker} per worker (global batch: ${r.batchPerWorker} x workers), ${r.steps} steps measured after ${r.warmup} warm-up; workers: ${r.devices}`,
    '',
  ];
  if (r.interrupted !== null) out.splice(0, 0, `interrupted by ${r.interrupted}: the figures below are partial, those measured before it`);
  const head = ['', 'global batch', 'images/s', '+/-', 'jitter', 'total images/s', 'scaling (vs 1 worker)', 'vs plain'];
  const rows = r.results.map((c) => [
    `mgpu-train, ${plural(c.workers, 'worker')}${c.partial ? ` (partial: ${c.measuredSteps} of ${r.steps} steps)` : ''}`,
    String(c.globalBatch),
    rate(c.imagesPerSec),
    rate(c.rate.stderr),
    rate(c.rate.jitter),
    rate(c.totalImagesPerSec),
    pct(c.efficiency),
    pct(c.vsPlain),
  ]);
  const p = r.plain;
  if (p.skipped === null) {
    const plainRow = [
      `plain tfjs, 1 process (${p.backend})`,
      String(p.batch),
      rate(p.imagesPerSec),
      rate(p.rate.stderr),
      rate(p.rate.jitter),
      rate(p.totalImagesPerSec),
      '',
      '100%',
    ];
    out.push(...columns(head, [plainRow, ...rows]));
    out.push(`plain tfjs: kernels ${p.kernels}; batch ${p.batch}, synthetic rows [${p.inputShape.join(', ')}]${p.note ? `; ${p.note}` : ''}`);
  } else if (rows.length > 0) {
    out.push(...columns(head, rows), `plain tfjs: not timed (${p.skipped})`);
  } else {
    return [...out, `plain tfjs: not timed (${p.skipped})`, 'no worker count was measured'];
  }
  if (rows.length === 0) return [...out, 'no worker count was measured'];
  out.push("scaling: images/s / (workers x 1 worker's); vs plain: images/s / (workers x plain tfjs's)", '');
  out.push('where a step goes (mean ms per measured step; the worker figures are of its whole step, of which weights in and gradients out):');
  const phaseHead = ['workers', 'step', 'slowest worker', 'fastest worker', 'weights in', 'gradients out', 'sum + update', 'data', 'data wait', 'control'];
  out.push(
    ...columns(
      phaseHead,
      r.results.map((c) => {
        const f = c.phases;
        return [
          String(c.workers),
          ...[f.stepMs, f.computeSlowestMs, f.computeFastestMs, f.weightsInMs, f.gradientsOutMs, f.sumUpdateMs, f.dataMs, f.dataWaitMs, f.controlMs].map(fmtMs),
        ];
      }),
    ),
  );
  out.push(...utilisationTable(r));
  for (const c of r.results) out.push(...kernelTable(c));
  return out;
}

const gflopsText = (v: number | null) => (v === null ? '-' : v >= 100 ? v.toFixed(0) : v.toPrecision(3));

/** How close to the limit: the FLOPs of a sample, the peak, and each row's achieved GFLOP/s and MFU. */
function utilisationTable(r: BenchmarkReport): string[] {
  if (!r.flops) return ['', 'how close to the limit: not known (the model was not built by the plain baseline, which counts its FLOPs)'];
  const f = r.flops;
  const out = [
    '',
    `how close to the limit: ${gflopsText(f.training / 1e9)} GFLOP a training sample (3 x the forward's ${gflopsText(f.forward / 1e9)}: the multiply-adds of convolutions and dense layers, 2 FLOPs each)`,
  ];
  if (f.uncounted.length > 0) out.push(`  not counted (layers of these classes hold weights but their work is not known): ${f.uncounted.join(', ')}`);
  const p = r.peak.peak;
  out.push(
    p
      ? `peak: ${gflopsText(p.gflopsPerDevice)} GFLOP/s per ${p.device === 'gpu' ? 'GPU' : 'core'} (${p.source}); MFU: achieved / (peak x the ${p.device === 'gpu' ? 'GPUs' : 'cores'} the row ran on)`
      : `peak: not known (${r.peak.missing})`,
  );
  const rows = r.utilisation.map((u) => [
    u.workers === null ? 'plain tfjs, 1 process' : `mgpu-train, ${plural(u.workers, 'worker')}`,
    String(u.devices),
    gflopsText(u.gflops),
    u.mfu === null ? '-' : `${(100 * u.mfu).toFixed(1)}%`,
  ]);
  if (rows.length > 0) out.push(...columns(['', p?.device === 'gpu' ? 'GPUs' : 'cores', 'GFLOP/s', 'MFU'], rows));
  return out;
}

/** The ten largest kernels of the count's profiled step, when it has one. */
function kernelTable(c: BenchmarkReport['results'][number]): string[] {
  const p = c.profile;
  if (!p) return [];
  const total = p.kernels.reduce((a, k) => a + (Number.isFinite(k.ms) ? k.ms : 0), 0);
  const head = `largest kernels of step ${p.step + 1} (the last warm-up step) in worker 0, ${plural(c.workers, 'worker')} (${p.backend}; the step ${fmtMs(p.wallMs)} ms under the profiler, its kernels ${fmtMs(total)} ms):`;
  if (total === 0) return ['', head, `  the ${p.backend} backend gave no kernel times`];
  const rows = p.kernels
    .slice(0, 10)
    .map((k) =>
      Number.isFinite(k.ms) ? [k.name, fmtMs(k.ms), `${((100 * k.ms) / total).toFixed(1)}%`, String(k.calls)] : [k.name, '-', '-', String(k.calls)],
    );
  return ['', head, ...columns(['kernel', 'ms', 'share', 'calls'], rows)];
}
