// Several machines on one (MPI ranks on this machine's cores): what the allreduce costs against
// the local slab sum it follows, and samples/s for M = 1, 2 (and 4 where the cores allow).
//   node --import tsx scripts/bench/mpi.ts [--steps 30]
// Needs mpirun and the MPI binding (npm run build:mpi). On one machine the ranks talk through
// shared memory (Open MPI's vader), so this measures the software path, not a network.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { floatKernels } from '../../src/shared/float-kernels.ts';
import { syntheticDataDir } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { steps: { type: 'string', default: '30' } } });
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const env = { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1', OMPI_MCA_rmaps_base_oversubscribe: '1' };
const sizes = [1_000_000, 5_000_000, 25_000_000];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

// The local sum the allreduce follows: two workers' gradients added, as the reduce does.
const k = floatKernels();
const localSum = sizes.map((p) => {
  const a = new Float32Array(p).fill(1);
  const b = new Float32Array(p).fill(2);
  const t: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    k.add(a, b);
    t.push(performance.now() - t0);
  }
  return median(t.slice(1));
});
const machines = os.availableParallelism() >= 4 ? [2, 4] : [2];
const rows: Array<Record<string, string | number>> = [];
for (const m of machines) {
  const out = execFileSync(
    'mpirun',
    ['-np', String(m), process.execPath, '--import', 'tsx', path.join(here, 'mpi-allreduce-child.ts'), '10', ...sizes.map(String)],
    { env, encoding: 'utf8' },
  );
  for (const line of out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))) {
    const r = JSON.parse(line) as { machines: number; params: number; allreduce_ms: number };
    const i = sizes.indexOf(r.params);
    rows.push({
      machines: r.machines,
      'parameters (M)': r.params / 1e6,
      'allreduce ms': r.allreduce_ms,
      'GB/s (bus)': (((2 * (m - 1)) / m) * r.params * 4) / r.allreduce_ms / 1e6,
      'local sum of 2 ranks ms': localSum[i]!,
      'allreduce / local sum': (r.allreduce_ms / localSum[i]!).toFixed(1),
    });
  }
}
printTable(`Allreduce over MPI ranks on this machine (shared memory), medians of 10, against the local slab sum (${k.kind} kernels)`, rows);

// samples/s of the MNIST-shaped MLP with 2 workers in all: 1 machine x 2, or 2 machines x 1.
const data = syntheticDataDir(4096);
const steps = Number(values.steps);
const run = (m: number): number => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-bench-mpi-'));
  const cfg = path.join(runDir, 'exp.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      model: { module: path.join(here, 'mlp-model.ts') },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'npy', features: path.join(data, 'x.npy'), labels: path.join(data, 'y.npy') } },
      training: { batchSize: 512, steps: steps + 5, seed: 1 },
      optimizer: { name: 'sgd', learningRate: 0.01 },
      devices: { simulate: 2 / m, backend: 'wasm' },
      log: { every: 1 },
      runDir,
    }),
  );
  const bin = path.join(root, 'bin', 'mgpu-train.mjs');
  if (m === 1) execFileSync(process.execPath, [bin, 'train', cfg], { env, stdio: 'ignore' });
  else execFileSync('mpirun', ['-np', String(m), process.execPath, bin, 'train', cfg], { env, stdio: 'ignore' });
  const lines = fs
    .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; step_ms: number })
    .filter((l) => l.type === 'train')
    .slice(5);
  fs.rmSync(runDir, { recursive: true, force: true });
  return (512 * 1000) / median(lines.map((l) => l.step_ms));
};
const one = run(1);
const two = run(2);
printTable("MLP 784-512-10, wasm, global batch 512, 2 workers in all (samples/s from the coordinators' step time)", [
  { setup: '1 machine x 2 workers', 'samples/s': Math.round(one), 'x 1 machine': '1.00' },
  { setup: '2 machines (MPI ranks) x 1 worker', 'samples/s': Math.round(two), 'x 1 machine': (two / one).toFixed(2) },
]);
console.log(`saved ${saveJson('mpi', { rows, samplesPerSec: { oneMachine: one, twoMachines: two } })}`);
fs.rmSync(data, { recursive: true, force: true });
