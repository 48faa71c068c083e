// Weak and strong scaling of mgpu-train on this machine's cores, in one run, both measured by
// `mgpu-train benchmark` (mlp-benchmark.ts) on N = the listed counts of simulated GPUs:
//   weak    a fixed number of rows per worker, so the global batch grows with N (the command's
//           own scaling: how the per-step overhead grows with N when each worker's compute stays
//           the same); one run of the command over every count;
//   strong  the same global batch B split over N workers (what a user gets for a fixed recipe);
//           one run of the command per count, at B/N rows a worker;
// with the spread of the workers' compute times in a step (slowest / fastest, the command's
// means): each step waits for its slowest worker, so a spread above 1 is lost time. The
// command's own tables for one case: mgpu-train benchmark --config <an MLP config> --workers ...
// scripts/gpu/on-device.sh runs this with workers pinned to cores and with MGPU_PIN_CORES=0.
//   node --import tsx scripts/bench/weak-strong.ts [--backend wasm] [--batch 512] [--rows 256] [--steps 30] [--max-workers <cores>] [--workers 1,2,4,8]
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { CountResult } from '../../src/benchmark/report.ts';
import type { BackendName } from '../../src/shared/backends-table.ts';
import { commandBenchmark, mlpBench } from './mlp-benchmark.ts';
import { workerCounts } from './worker-counts.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'wasm' },
    batch: { type: 'string', default: '512' },
    rows: { type: 'string', default: '256' },
    steps: { type: 'string', default: '30' },
    'max-workers': { type: 'string', default: String(os.availableParallelism()) },
    workers: { type: 'string' },
  },
});
const backend = values.backend as BackendName;
const batch = Number(values.batch);
const rows = Number(values.rows);
const counts = workerCounts(values.workers, Number(values['max-workers']));
const bench = mlpBench(Math.max(batch, rows * Math.max(...counts)), backend, 'mgpu', Number(values.steps));

const spread = (c: CountResult) => (c.phases.computeSlowestMs / c.phases.computeFastestMs).toFixed(2);
const pct = (v: number) => `${(v * 100).toFixed(0)}%`;

const weakRun = commandBenchmark(bench, rows, counts);
const weak = weakRun.results.map((c) => ({
  workers: c.workers,
  'rows each': rows,
  'global batch': c.globalBatch,
  'images/s': Math.round(c.imagesPerSec),
  'x 1 worker': c.efficiency === null ? '-' : (c.efficiency * c.workers).toFixed(2),
  efficiency: c.efficiency === null ? '-' : pct(c.efficiency),
  'vs plain': c.vsPlain === null ? '-' : pct(c.vsPlain),
  'compute spread': spread(c),
}));

const strongCounts = counts.map((n) => commandBenchmark(bench, Math.max(1, Math.floor(batch / n)), [n]).results[0]!);
const one = strongCounts.find((c) => c.workers === 1)?.imagesPerSec ?? null;
const strong = strongCounts.map((c) => ({
  workers: c.workers,
  'global batch': c.globalBatch,
  'images/s': Math.round(c.imagesPerSec),
  speedup: one === null ? '-' : (c.imagesPerSec / one).toFixed(2),
  efficiency: one === null ? '-' : pct(c.imagesPerSec / one / c.workers),
  'compute spread': spread(c),
}));

const cores = os.availableParallelism();
printTable(`Strong scaling: MLP 784-512-10, sgd, global batch ${batch} (B/N rows a worker), ${backend}, ${cores} cores`, strong);
printTable(`Weak scaling: ${rows} rows per worker, ${backend}, ${cores} cores; vs plain: against plain tfjs at ${rows} rows`, weak);
console.log(`saved ${saveJson('weak-strong', { backend, batch, rows, steps: bench.steps, strong, weak })}`);
