// Weak and strong scaling of mgpu-train on this machine's cores, in one run: for N = 1 .. the
// given maximum of simulated GPUs,
//   strong  the same global batch B split over N workers (what a user gets for a fixed recipe);
//   weak    a fixed number of rows per worker, so the global batch grows with N (how the per-step
//           overhead grows with N when each worker's compute stays the same);
// with the spread of the workers' compute times in a step (slowest / fastest, medians): each step
// waits for its slowest worker, so a spread above 1 is lost time. Samples/s come from the wall
// time between completed steps.
//   node --import tsx scripts/bench/weak-strong.ts [--backend wasm] [--batch 512] [--rows 256] [--steps 30] [--max-workers <cores>] [--workers 1,2,4,8]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runMgpu, syntheticDataDir } from './run-mgpu.ts';
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
const backend = values.backend;
const batch = Number(values.batch);
const rows = Number(values.rows);
const steps = Number(values.steps);
const maxWorkers = Number(values['max-workers']);
const dataDir = syntheticDataDir(Math.max(batch, rows * maxWorkers) * 4);

const strong: Array<Record<string, string | number>> = [];
const weak: Array<Record<string, string | number>> = [];
let strong1 = 0;
let weak1 = 0;
for (const n of workerCounts(values.workers, maxWorkers)) {
  const s = await runMgpu({ dataDir, workers: n, batch, steps: steps + 5, backend });
  strong1 ||= s.samples_per_sec;
  strong.push({
    workers: n,
    'global batch': batch,
    'samples/s': Math.round(s.samples_per_sec),
    speedup: (s.samples_per_sec / strong1).toFixed(2),
    efficiency: ((s.samples_per_sec / strong1 / n) * 100).toFixed(0) + '%',
    'compute spread': (s.compute_max_ms / s.compute_min_ms).toFixed(2),
  });
  const w = await runMgpu({ dataDir, workers: n, batch: rows * n, steps: steps + 5, backend });
  weak1 ||= w.samples_per_sec;
  weak.push({
    workers: n,
    'rows each': rows,
    'global batch': rows * n,
    'samples/s': Math.round(w.samples_per_sec),
    'x 1 worker': (w.samples_per_sec / weak1).toFixed(2),
    efficiency: ((w.samples_per_sec / weak1 / n) * 100).toFixed(0) + '%',
    'compute spread': (w.compute_max_ms / w.compute_min_ms).toFixed(2),
  });
}
printTable(`Strong scaling: MLP 784-512-10, sgd, global batch ${batch}, ${backend}, ${os.availableParallelism()} cores`, strong);
printTable(`Weak scaling: ${rows} rows per worker, ${backend}, ${os.availableParallelism()} cores`, weak);
console.log(`saved ${saveJson('weak-strong', { backend, batch, rows, steps, strong, weak })}`);
