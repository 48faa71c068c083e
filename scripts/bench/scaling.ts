// Scaling against what the machine allows: samples/s of the same model (MLP 784-512-10) at the
// same global batch B on plain single-process tfjs, on mgpu-train with N workers at B/N rows
// each (`mgpu-train benchmark`, one run a count: mlp-benchmark.ts), and the free-running
// ceiling: N plain tfjs processes on B/N rows each side by side, with no data exchanged (the sum
// of their rates), what the cores give before any synchronisation. What the command alone does
// not give: the ceiling, both kernel sets in one table (on wasm):
//   shipped  wasm's kernels as published (its matmul with a transposed operand is a slow loop:
//            a step is mostly compute, the case most favourable to scaling);
//   mgpu     with the kernels mgpu-train's workers register by default (devices.replaceWasmKernels);
// and each speedup paired in time: every setup runs between two plain runs with the same kernels
// and its speedup is against their mean, round after round (on a shared machine whose speed
// drifts, ratios paired in time hold where absolute figures do not). 'x tfjs as shipped'
// compares with what a user has today. Plain tfjs here is the command's own baseline process.
//   node --import tsx scripts/bench/scaling.ts [--backend wasm] [--batch 512] [--steps 30] [--rounds 3] [--max-workers <cores>] [--workers 1,2,4] [--kernels shipped,mgpu]
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { BackendName } from '../../src/shared/backends-table.ts';
import { commandBenchmark, median, mlpBench, plainSideBySide, type Kernels, type MlpBench } from './mlp-benchmark.ts';
import { workerCounts } from './worker-counts.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'wasm' },
    batch: { type: 'string', default: '512' },
    steps: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '3' },
    'max-workers': { type: 'string', default: String(os.availableParallelism()) },
    kernels: { type: 'string', default: 'shipped,mgpu' },
    workers: { type: 'string' },
  },
});
const backend = values.backend as BackendName;
const batch = Number(values.batch);
const counts = workerCounts(values.workers, Number(values['max-workers']));
// The kernel sets only differ on wasm.
const kernelSets = (backend === 'wasm' ? values.kernels.split(',') : ['mgpu']) as Kernels[];
const benches = new Map(kernelSets.map((k) => [k, mlpBench(batch, backend, k, Number(values.steps))]));

type Setup = { name: string; workers: number; run: (b: MlpBench) => Promise<number> };
const PLAIN = 'plain tfjs, 1 process';
const setups: Setup[] = [
  ...counts
    .filter((n) => n > 1)
    .map((n) => ({
      name: `ceiling: ${n} plain processes free-running, no data`,
      workers: n,
      run: (b: MlpBench) => plainSideBySide(b, n, Math.round(batch / n)),
    })),
  ...counts.map((n) => ({
    name: `mgpu-train, ${n} worker${n > 1 ? 's' : ''}`,
    workers: n,
    run: async (b: MlpBench) => commandBenchmark(b, Math.max(1, Math.floor(batch / n)), [n]).results[0]!.imagesPerSec,
  })),
];

const rates = new Map<string, number[]>();
const speedups = new Map<string, number[]>();
const push = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [k, bench] of benches) {
    let before = await plainSideBySide(bench, 1, batch);
    push(rates, `${k}|${PLAIN}`, before);
    for (const s of setups) {
      const rate = await s.run(bench);
      const after = await plainSideBySide(bench, 1, batch);
      push(rates, `${k}|${PLAIN}`, after);
      push(rates, `${k}|${s.name}`, rate);
      push(speedups, `${k}|${s.name}`, rate / ((before + after) / 2));
      before = after;
    }
  }
}

const shipped = median(rates.get(`${kernelSets[0]!}|${PLAIN}`)!);
const rows = kernelSets
  .flatMap((k) => [
    {
      kernels: k,
      setup: PLAIN,
      workers: 1,
      'samples/s (median)': median(rates.get(`${k}|${PLAIN}`)!),
      'speedup (median)': 1,
      'speedup range': '',
      efficiency: 1,
    },
    ...setups.map((s) => {
      const sp = speedups.get(`${k}|${s.name}`)!;
      return {
        kernels: k,
        setup: s.name,
        workers: s.workers,
        'samples/s (median)': median(rates.get(`${k}|${s.name}`)!),
        'speedup (median)': median(sp),
        'speedup range': `${Math.min(...sp).toFixed(2)}-${Math.max(...sp).toFixed(2)}`,
        efficiency: median(sp) / s.workers,
      };
    }),
  ])
  .map((r) => ({ ...r, [`x ${kernelSets[0]!} plain`]: r['samples/s (median)'] / shipped }));
printTable(
  `Scaling: MLP 784-512-10, global batch ${batch}, ${backend}, sgd; ${values.rounds} rounds; each speedup against the mean of the plain runs (same kernels) just before and just after it`,
  rows,
);
console.log(`saved ${saveJson('scaling', { backend, batch, rows })}`);
