// Latency: the per-step cost of the machinery itself, on a model so small that compute is
// negligible (784-4-10, 8 samples per worker): everything in a step that is not the slowest
// worker's own work is control messages, the reduce and staging.
//   node --import tsx scripts/bench/latency.ts [--workers 2] [--steps 300] [--backend cpu]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runMgpu, syntheticDataDir } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({ options: { workers: { type: 'string', default: '2' }, steps: { type: 'string', default: '300' }, backend: { type: 'string', default: 'cpu' } } });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-latency-'));
const model = path.join(dir, 'tiny.mjs');
fs.writeFileSync(model, "export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [784], units: 4, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })] });\n");
const rows: Array<Record<string, string | number>> = [];
for (let n = 1; n <= Number(values.workers); n++) {
  const r = await runMgpu({ dataDir: syntheticDataDir(1024), workers: n, batch: 8 * n, steps: Number(values.steps), backend: values.backend!, model });
  rows.push({
    workers: n, 'step ms': r.step_ms, 'worker ms (slowest)': r.compute_max_ms, 'reduce ms': r.sync_ms, 'stage ms': r.data_ms,
    'control overhead ms': r.step_ms - r.compute_max_ms - r.sync_ms - r.data_ms,
  });
}
printTable(`Latency: tiny model (784-4-10), 8 samples per worker, ${values.backend}, medians over ${values.steps} steps`, rows);
console.log(`saved ${saveJson('latency', rows)}`);
