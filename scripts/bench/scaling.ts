// Scaling: samples/s of the same model (MLP 784-512-10) and global batch on plain single-process
// tfjs, on mgpu-train with 1, 2, ... workers, and on a naive data-parallel loop over Node IPC,
// all on the same backend. On wasm it runs twice, once per kernel set:
//   shipped  wasm's kernels as published (its matmul with a transposed operand is a slow loop:
//            a step is mostly compute, the case most favourable to scaling);
//   mgpu     with the kernels mgpu-train's workers register by default (6-7x faster steps, so
//            the fixed cost of a step weighs more).
// Each speedup is taken against plain tfjs with the same kernels (like for like: it measures the
// distribution alone); 'x tfjs as shipped' compares with what a user has today. Two ceilings,
// both N plain processes on B/N rows each with no data exchanged: free-running side by side
// (the sum of their rates), and in lock step (a barrier per step, as synchronous SGD must wait
// for its slowest member): what this machine allows before any synchronisation. Every setup runs between two plain runs and its
// speedup is against their mean, round after round: on a shared machine whose speed drifts,
// ratios paired in time hold where absolute figures do not.
//   node --import tsx scripts/bench/scaling.ts [--backend wasm] [--batch 512] [--steps 30] [--rounds 3] [--max-workers 2] [--workers 1,2,4] [--kernels shipped,mgpu]
import { execFile } from 'node:child_process';
import os from 'node:os';
import { parseArgs, promisify } from 'node:util';
import { runLockstepPlain } from './lockstep-plain.ts';
import { runNaiveIpc } from './naive-ipc.ts';
import { median, runMgpu, syntheticDataDir, type MgpuFigures } from './run-mgpu.ts';
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
const batch = Number(values.batch);
const steps = Number(values.steps);
const maxWorkers = Number(values['max-workers']);
const counts = workerCounts(values.workers, maxWorkers);
const several = counts.filter((n) => n > 1);
const backend = values.backend;
const dataDir = syntheticDataDir(batch * 8);
type Kernels = 'shipped' | 'mgpu';
// The kernel sets only differ on wasm.
const kernelSets = (backend === 'wasm' ? values.kernels.split(',') : ['shipped']) as Kernels[];

const run = promisify(execFile);
/** samples/s of one plain tfjs process on `rows` rows per step. */
const plainRun = async (rows: number, kernels: Kernels): Promise<number> => {
  const script = new URL('./plain-tfjs.ts', import.meta.url).pathname;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, backend, String(rows), String(steps), '5', kernels === 'mgpu' ? 'mgpu' : 'stock']);
  return (JSON.parse(stdout.trim().split('\n').pop()!) as { samples_per_sec: number }).samples_per_sec;
};

type Setup = { name: string; kernels: Kernels; workers: number; run: () => Promise<number> };
const PLAIN = 'plain tfjs, 1 process';
const mgpuFigures = new Map<string, MgpuFigures[]>();
const setups: Setup[] = [];
for (const k of kernelSets) {
  const replaceWasmKernels = k === 'mgpu';
  for (const n of several) {
    setups.push({
      name: `ceiling: ${n} plain processes free-running, no data`,
      kernels: k,
      workers: n,
      run: async () => {
        const rates = await Promise.all(Array.from({ length: n }, () => plainRun(Math.round(batch / n), k)));
        return rates.reduce((a, b) => a + b, 0);
      },
    });
    setups.push({
      name: `ceiling: ${n} plain processes in lock step, no data`,
      kernels: k,
      workers: n,
      run: async () => (await runLockstepPlain(n, batch, steps, backend, k === 'mgpu' ? 'mgpu' : 'stock')).samples_per_sec,
    });
  }
  for (const n of counts) {
    setups.push({
      name: `mgpu-train, ${n} worker${n > 1 ? 's' : ''}`,
      kernels: k,
      workers: n,
      run: async () => {
        const r = await runMgpu({ dataDir, workers: n, batch, steps, backend, replaceWasmKernels });
        mgpuFigures.set(`${k}|${n}`, [...(mgpuFigures.get(`${k}|${n}`) ?? []), r]);
        return r.samples_per_sec;
      },
    });
  }
  for (const n of several) {
    setups.push({
      name: `naive: Node IPC messages, ${n} workers`,
      kernels: k,
      workers: n,
      run: async () => (await runNaiveIpc(n, batch, steps, backend, replaceWasmKernels)).samples_per_sec,
    });
  }
}

// Each setup runs between two plain runs with the same kernels, and its speedup is taken
// against their mean: the VM's speed drifts within minutes, and this pairs them in time.
const key = (kernels: Kernels, name: string) => `${kernels}|${name}`;
const speedups = new Map<string, number[]>();
const rates = new Map<string, number[]>();
const push = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const k of kernelSets) {
    let before = await plainRun(batch, k);
    push(rates, key(k, PLAIN), before);
    for (const s of setups.filter((x) => x.kernels === k)) {
      const sps = await s.run();
      const after = await plainRun(batch, k);
      push(rates, key(k, PLAIN), after);
      push(rates, key(k, s.name), sps);
      push(speedups, key(k, s.name), sps / ((before + after) / 2));
      before = after;
    }
  }
}
const shipped = median(rates.get(key(kernelSets[0]!, PLAIN))!);
const rows: Array<Record<string, string | number>> = kernelSets.flatMap((k) => [
  {
    kernels: k,
    setup: PLAIN,
    workers: 1,
    'samples/s (median)': median(rates.get(key(k, PLAIN))!),
    'speedup (median)': 1,
    'speedup range': '',
    efficiency: 1,
    'x tfjs as shipped': median(rates.get(key(k, PLAIN))!) / shipped,
  },
  ...setups
    .filter((s) => s.kernels === k)
    .map((s) => {
      const sp = speedups.get(key(k, s.name))!;
      const sps = median(rates.get(key(k, s.name))!);
      return {
        kernels: k,
        setup: s.name,
        workers: s.workers,
        'samples/s (median)': sps,
        'speedup (median)': median(sp),
        'speedup range': `${Math.min(...sp).toFixed(2)}-${Math.max(...sp).toFixed(2)}`,
        efficiency: median(sp) / s.workers,
        'x tfjs as shipped': sps / shipped,
      };
    }),
]);
printTable(
  `Scaling: MLP 784-512-10, global batch ${batch}, ${backend}, sgd; median step after 5 warm-up steps; ${values.rounds} rounds; each speedup against the mean of the plain runs (same kernels) just before and just after it; 'x tfjs as shipped': ratio of medians`,
  rows,
);

// The worker's own time holds its weight refresh and gradient write; what is left of the step
// after the slowest worker, the reduce and the staging is control-message latency and waiting.
const phases = [...mgpuFigures.entries()].map(([k, runs]) => {
  const m = (f: keyof MgpuFigures) => median(runs.map((r) => r[f]));
  const fwdBwd = m('compute_max_ms') - m('refresh_ms') - m('write_ms');
  const [kernels, n] = k.split('|');
  return {
    kernels: kernels!,
    workers: Number(n),
    'step ms': m('step_ms'),
    'fwd+bwd (slowest)': fwdBwd,
    'fwd+bwd (fastest)': m('compute_min_ms') - m('refresh_ms') - m('write_ms'),
    'weights in': m('refresh_ms'),
    'grads out': m('write_ms'),
    'reduce+apply+publish': m('sync_ms'),
    'stage (critical path)': m('data_ms'),
    'messages+wait': m('step_ms') - m('compute_max_ms') - m('sync_ms') - m('data_ms'),
    'overhead %': (100 * (m('step_ms') - fwdBwd)) / m('step_ms'),
  };
});
printTable("Where a step goes (ms, medians; weights in / grads out are the slowest worker's)", phases);
console.log(`saved ${saveJson('scaling', { rows, phases })}`);
