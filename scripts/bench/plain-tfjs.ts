// The baseline a user has today: one process, plain tfjs, the same model, data and global
// batch, trained with tfjs's own optimizer.minimize. Prints one JSON line: samples/s.
//   node --import tsx scripts/bench/plain-tfjs.ts <backend> <batch> <steps> <warmup> [stock|mgpu]
// 'stock' (the default) runs the backend's kernels as shipped; 'mgpu' first registers the wasm
// kernels mgpu-train's workers use (registerWasmGradKernels), for a like-for-like baseline.
import { backendInUse, plainTrainer } from './plain-trainer.ts';

const [backend = 'wasm', batchArg = '512', stepsArg = '30', warmupArg = '5', kernels = 'stock'] = process.argv.slice(2);
const batch = Number(batchArg);
const steps = Number(stepsArg);
const warmup = Number(warmupArg);
// Data for 8 steps, so the rows differ from step to step (a multiple of the batch: no step wraps).
const step = await plainTrainer(backend, batch, batch * 8, kernels);
const times: number[] = [];
for (let k = 0; k < steps + warmup; k++) {
  const t0 = performance.now();
  await step(k * batch);
  if (k >= warmup) times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const median = times[times.length >> 1];
console.log(JSON.stringify({ backend: backendInUse(), kernels, batch, steps, median_step_ms: median, samples_per_sec: (batch * 1000) / median! }));
process.exit(0); // Dawn, when loaded, would hold the process open
