// Scaling: samples/s of the same model (MLP 784-512-10) and global batch on plain single-process
// tfjs (what a user has today) and on mgpu-train with 1, 2, ... workers, on the same backend.
//   node --import tsx scripts/bench/scaling.ts [--backend wasm] [--batch 512] [--steps 40] [--max-workers 2]
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
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
for (let n = 1; n <= Number(values['max-workers']); n++) {
  const r = await runMgpu({ dataDir, workers: n, batch, steps, backend: values.backend! });
  const speedup = r.samples_per_sec / plain.samples_per_sec;
  rows.push({ setup: `mgpu-train, ${n} worker${n > 1 ? 's' : ''}`, workers: n, 'samples/s': r.samples_per_sec, 'step ms': r.step_ms, speedup, efficiency: speedup / n });
}
printTable(`Scaling: MLP 784-512-10, global batch ${batch}, ${values.backend}, sgd (median step after warm-up)`, rows);
console.log(`saved ${saveJson('scaling', rows)}`);
