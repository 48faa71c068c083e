// Scaling: samples/s of the same model (MLP 784-512-10) and global batch on plain single-process
// tfjs, on mgpu-train with 1, 2, ... workers, and on a naive data-parallel loop over Node IPC, all
// on the same backend. Two plain baselines: tfjs as shipped (what a user has today) and tfjs with
// the wasm kernels mgpu-train's workers register (the like-for-like one: speedup and efficiency
// are taken against it, so they measure the distribution alone). The ceiling row is N plain
// processes, each on B/N rows, running side by side with no communication at all: what this
// machine allows before any synchronisation. The setups run in turn, round after round, and each
// ratio is taken against the plain runs of its own round: on a shared machine whose speed drifts,
// paired ratios hold where absolute figures do not.
//   node --import tsx scripts/bench/scaling.ts [--backend wasm] [--batch 512] [--steps 30] [--rounds 3] [--max-workers 2]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runNaiveIpc } from './naive-ipc.ts';
import { median, runMgpu, syntheticDataDir, type MgpuFigures } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: {
  backend: { type: 'string', default: 'wasm' }, batch: { type: 'string', default: '512' }, steps: { type: 'string', default: '30' },
  rounds: { type: 'string', default: '3' }, 'max-workers': { type: 'string', default: String(os.availableParallelism()) },
} });
const batch = Number(values.batch);
const steps = Number(values.steps);
const maxWorkers = Number(values['max-workers']);
const backend = values.backend!;
const dataDir = syntheticDataDir(batch * 8);

const run = promisify(execFile);
/** samples/s of one plain tfjs process on `rows` rows per step. */
const plainRun = async (rows: number, kernels: 'stock' | 'mgpu'): Promise<number> => {
  const script = new URL('./plain-tfjs.ts', import.meta.url).pathname;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, backend, String(rows), String(steps), '5', kernels]);
  return JSON.parse(stdout.trim().split('\n').pop()!).samples_per_sec;
};
// The kernels only differ on wasm; elsewhere the two baselines are the same setup.
const likeForLike = backend === 'wasm' ? 'mgpu' : 'stock';

type Setup = { name: string; workers: number; run: () => Promise<number> };
const mgpuFigures = new Map<number, MgpuFigures[]>();
const setups: Setup[] = [];
for (let n = 2; n <= maxWorkers; n++) {
  setups.push({ name: `ceiling: ${n} plain processes side by side, no sync`, workers: n, run: async () => {
    const rates = await Promise.all(Array.from({ length: n }, () => plainRun(Math.round(batch / n), likeForLike)));
    return rates.reduce((a, b) => a + b, 0);
  } });
}
for (let n = 1; n <= maxWorkers; n++) {
  setups.push({ name: `mgpu-train, ${n} worker${n > 1 ? 's' : ''}`, workers: n, run: async () => {
    const r = await runMgpu({ dataDir, workers: n, batch, steps, backend });
    mgpuFigures.set(n, [...(mgpuFigures.get(n) ?? []), r]);
    return r.samples_per_sec;
  } });
}
for (let n = 2; n <= maxWorkers; n++) {
  setups.push({ name: `naive: Node IPC messages, ${n} workers`, workers: n, run: async () => (await runNaiveIpc(n, batch, steps, backend)).samples_per_sec });
}

const stockName = `plain tfjs (${backend}, kernels as shipped), 1 process`;
const baseName = `plain tfjs (${backend}${backend === 'wasm' ? ' + mgpu-train\'s kernels' : ''}), 1 process`;
const all: Setup[] = [
  ...(likeForLike === 'mgpu' ? [{ name: stockName, workers: 1, run: () => plainRun(batch, 'stock') }] : []),
  { name: baseName, workers: 1, run: () => plainRun(batch, likeForLike) },
  ...setups,
];
const speedups = new Map<string, number[]>();
const overStock = new Map<string, number[]>();
const rates = new Map<string, number[]>();
const push = (m: Map<string, number[]>, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);
for (let round = 0; round < Number(values.rounds); round++) {
  const got = new Map<string, number>();
  for (const s of all) got.set(s.name, await s.run());
  const base = got.get(baseName)!;
  const stock = got.get(stockName) ?? base;
  for (const [name, sps] of got) {
    push(rates, name, sps);
    push(speedups, name, sps / base);
    push(overStock, name, sps / stock);
  }
}
const rows: Array<Record<string, string | number>> = all.map((s) => {
  const sp = speedups.get(s.name)!;
  return { setup: s.name, workers: s.workers, 'samples/s (median)': median(rates.get(s.name)!), 'speedup (median of rounds)': median(sp),
    'speedup range': `${Math.min(...sp).toFixed(2)}-${Math.max(...sp).toFixed(2)}`, efficiency: median(sp) / s.workers,
    'x tfjs as shipped': median(overStock.get(s.name)!) };
});
printTable(`Scaling: MLP 784-512-10, global batch ${batch}, ${backend}, sgd; median step after 5 warm-up steps; ${values.rounds} rounds; speedup against the like-for-like plain run of the same round`, rows);

// The worker's own time holds its weight refresh and gradient write; what is left of the step
// after the slowest worker, the reduce and the staging is control-message latency and waiting.
const phases = [...mgpuFigures.entries()].map(([n, runs]) => {
  const m = (k: keyof MgpuFigures) => median(runs.map((r) => r[k]));
  const fwdBwd = m('compute_max_ms') - m('refresh_ms') - m('write_ms');
  return {
    workers: n, 'step ms': m('step_ms'), 'fwd+bwd (slowest)': fwdBwd, 'fwd+bwd (fastest)': m('compute_min_ms') - m('refresh_ms') - m('write_ms'),
    'weights in': m('refresh_ms'), 'grads out': m('write_ms'), 'reduce+apply+publish': m('sync_ms'), 'stage (critical path)': m('data_ms'),
    'messages+wait': m('step_ms') - m('compute_max_ms') - m('sync_ms') - m('data_ms'), 'overhead %': (100 * (m('step_ms') - fwdBwd)) / m('step_ms'),
  };
});
printTable('Where a step goes (ms, medians; weights in / grads out are the slowest worker\'s)', phases);
console.log(`saved ${saveJson('scaling', { rows, phases })}`);
