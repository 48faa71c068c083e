// Scaling: samples/s of the same model (MLP 784-512-10) and global batch on plain single-process
// tfjs (what a user has today), on mgpu-train with 1, 2, ... workers, and on a naive data-parallel
// loop over Node IPC, all on the same backend. The setups run in turn, round after round, and
// each speedup is taken against the plain run of its own round: on a shared machine whose speed
// drifts, paired ratios hold where absolute figures do not.
//   node --import tsx scripts/bench/scaling.ts [--backend wasm] [--batch 512] [--steps 30] [--rounds 3] [--max-workers 2]
import { execFileSync } from 'node:child_process';
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

const plainRun = (): number => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', new URL('./plain-tfjs.ts', import.meta.url).pathname, backend, String(batch), String(steps), '5'], { encoding: 'utf8' }).trim().split('\n').pop()!).samples_per_sec;

type Setup = { name: string; workers: number; run: () => Promise<number> };
const mgpuFigures = new Map<number, MgpuFigures[]>();
const setups: Setup[] = [];
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

const plain: number[] = [];
const speedups = new Map<string, number[]>();
const rates = new Map<string, number[]>();
for (let round = 0; round < Number(values.rounds); round++) {
  const base = plainRun();
  plain.push(base);
  for (const s of setups) {
    const sps = await s.run();
    speedups.set(s.name, [...(speedups.get(s.name) ?? []), sps / base]);
    rates.set(s.name, [...(rates.get(s.name) ?? []), sps]);
  }
}
const rows: Array<Record<string, string | number>> = [
  { setup: `plain tfjs (${backend}), 1 process`, workers: 1, 'samples/s (median)': median(plain), 'speedup (median of rounds)': 1, 'speedup range': '1', efficiency: 1 },
  ...setups.map((s) => {
    const sp = speedups.get(s.name)!;
    return { setup: s.name, workers: s.workers, 'samples/s (median)': median(rates.get(s.name)!), 'speedup (median of rounds)': median(sp),
      'speedup range': `${Math.min(...sp).toFixed(2)}-${Math.max(...sp).toFixed(2)}`, efficiency: median(sp) / s.workers };
  }),
];
printTable(`Scaling: MLP 784-512-10, global batch ${batch}, ${backend}, sgd; median step after 5 warm-up steps; ${values.rounds} rounds, each setup against its round's plain run`, rows);

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
