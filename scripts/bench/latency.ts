// Latency: the per-step cost of the machinery itself, on a model so small that compute is
// negligible (784-4-10, 8 samples per worker): everything in a step that is not the slowest
// worker's own work is control messages, the reduce and staging. The floor rows are the same
// control round trip to N stand-in processes (no tfjs, no slab) that answer at once, or after
// spinning on the CPU as long as mgpu-train's slowest worker worked: what the machine's
// scheduler and a socket pair cost before mgpu-train does anything.
//   node --import tsx scripts/bench/latency.ts [--workers 2] [--steps 300] [--backend cpu]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Channel } from '../../src/shared/channel.ts';
import { childExecArgv } from '../../src/shared/runtime.ts';
import { median, runMgpu, syntheticDataDir } from './run-mgpu.ts';
import { printTable, saveJson } from './table.ts';

const { values } = parseArgs({
  options: { workers: { type: 'string', default: '2' }, steps: { type: 'string', default: '300' }, backend: { type: 'string', default: 'cpu' } },
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-latency-'));
const model = path.join(dir, 'tiny.mjs');
fs.writeFileSync(
  model,
  "export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [784], units: 4, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })] });\n",
);
/** Median round trip of a step message to n echoing processes, over the same framed socket pairs. */
async function floor(n: number, steps: number, busyMs: number): Promise<number> {
  const child = fileURLToPath(new URL('./echo-child.ts', import.meta.url));
  const kids = Array.from({ length: n }, () => spawn(process.execPath, [...childExecArgv(), child], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] }));
  let pending = 0;
  let done: () => void = () => {};
  const chans = kids.map(
    (k) =>
      new Channel<{ type: 'done'; step: number }, { type: 'step'; step: number; busyMs: number }>(k.stdio[3] as Duplex, () => {
        if (--pending === 0) done();
      }),
  );
  const times: number[] = [];
  for (let step = 0; step < steps + 20; step++) {
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      pending = n;
      done = resolve;
      chans.forEach((c) => c.send({ type: 'step', step, busyMs }));
    });
    if (step >= 20) times.push(performance.now() - t0);
  }
  kids.forEach((k) => k.kill());
  return median(times);
}

const rows: Array<Record<string, string | number>> = [];
for (let n = 1; n <= Number(values.workers); n++) {
  const idle = await floor(n, Number(values.steps), 0);
  rows.push({
    workers: n,
    setup: 'floor: stand-ins answering at once',
    'step ms': idle,
    'worker ms (slowest)': 0,
    'reduce ms': 0,
    'stage ms': 0,
    'control overhead ms': idle,
  });
  const r = await runMgpu({ dataDir: syntheticDataDir(1024), workers: n, batch: 8 * n, steps: Number(values.steps), backend: values.backend, model });
  rows.push({
    workers: n,
    setup: 'mgpu-train',
    'step ms': r.step_ms,
    'worker ms (slowest)': r.compute_max_ms,
    'reduce ms': r.sync_ms,
    'stage ms': r.data_ms,
    'control overhead ms': r.step_ms - r.compute_max_ms - r.sync_ms - r.data_ms,
  });
  const busy = await floor(n, Number(values.steps), r.compute_max_ms);
  rows.push({
    workers: n,
    setup: `floor: stand-ins spinning ${r.compute_max_ms.toFixed(2)} ms`,
    'step ms': busy,
    'worker ms (slowest)': r.compute_max_ms,
    'reduce ms': 0,
    'stage ms': 0,
    'control overhead ms': busy - r.compute_max_ms,
  });
}
printTable(`Latency: tiny model (784-4-10), 8 samples per worker, ${values.backend}, medians over ${values.steps} steps`, rows);
console.log(`saved ${saveJson('latency', rows)}`);
