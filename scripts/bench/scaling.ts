// Scaling: samples/s of the same model (MLP 784-512-10) and global batch on plain single-process
// tfjs (what a user has today) and on mgpu-train with 1, 2, ... workers, on the same backend.
//   node --import tsx scripts/bench/scaling.ts [--backend wasm] [--batch 512] [--steps 40] [--max-workers 2]
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runNaiveIpc } from './naive-ipc.ts';
import { runMgpu, syntheticDataDir } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: {
  backend: { type: 'string', default: 'wasm' }, batch: { type: 'string', default: '512' },
  steps: { type: 'string', default: '40' }, 'max-workers': { type: 'string', default: String(os.availableParallelism()) },
} });
const batch = Number(values.batch);
const steps = Number(values.steps);

const plain = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', new URL('./plain-tfjs.ts', import.meta.url).pathname, values.backend!, String(batch), String(steps), '5'], { encoding: 'utf8' }).trim().split('\n').pop()!);
const rows: Array<Record<string, string | number>> = [{ setup: `plain tfjs (${values.backend}), 1 process`, workers: 1, 'samples/s': plain.samples_per_sec, 'step ms': plain.median_step_ms, speedup: 1, efficiency: 1 }];
const dataDir = syntheticDataDir(batch * 8);
const phases: Array<Record<string, string | number>> = [];
for (let n = 1; n <= Number(values['max-workers']); n++) {
  const r = await runMgpu({ dataDir, workers: n, batch, steps, backend: values.backend! });
  const speedup = r.samples_per_sec / plain.samples_per_sec;
  rows.push({ setup: `mgpu-train, ${n} worker${n > 1 ? 's' : ''}`, workers: n, 'samples/s': r.samples_per_sec, 'step ms': r.step_ms, speedup, efficiency: speedup / n });
  // The worker's own time holds its weight refresh and gradient write; what is left of the step
  // after the slowest worker, the reduce and the staging is control-message latency and waiting.
  const fwdBwd = r.compute_max_ms - r.refresh_ms - r.write_ms;
  phases.push({
    workers: n, 'step ms': r.step_ms, 'fwd+bwd (slowest)': fwdBwd, 'fwd+bwd (fastest)': r.compute_min_ms - r.refresh_ms - r.write_ms,
    'weights in': r.refresh_ms, 'grads out': r.write_ms, 'reduce+apply+publish': r.sync_ms, 'stage (critical path)': r.data_ms,
    'messages+wait': r.step_ms - r.compute_max_ms - r.sync_ms - r.data_ms, 'overhead %': (100 * (r.step_ms - fwdBwd)) / r.step_ms,
  });
}
for (let n = 2; n <= Number(values['max-workers']); n++) {
  const r = await runNaiveIpc(n, batch, steps, values.backend!);
  const speedup = r.samples_per_sec / plain.samples_per_sec;
  rows.push({ setup: `naive: Node IPC messages, ${n} workers`, workers: n, 'samples/s': r.samples_per_sec, 'step ms': r.step_ms, speedup, efficiency: speedup / n });
}
printTable(`Scaling: MLP 784-512-10, global batch ${batch}, ${values.backend}, sgd (median step after 5 warm-up steps)`, rows);
printTable('Where a step goes (ms, medians of the logged windows; weights in / grads out are the slowest worker\'s)', phases);
console.log(`saved ${saveJson('scaling', { rows, phases })}`);
