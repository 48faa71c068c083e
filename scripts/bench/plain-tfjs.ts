// The baseline a user has today: one process, plain tfjs, the same model, data and global
// batch, trained with tfjs's own optimizer.minimize. Prints one JSON line: samples/s.
//   node --import tsx scripts/bench/plain-tfjs.ts <backend> <batch> <steps> <warmup> [stock|mgpu]
// 'stock' (the default) runs the backend's kernels as shipped; 'mgpu' first registers the wasm
// kernels mgpu-train's workers use (registerWasmGradKernels), for a like-for-like baseline.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import buildModel from './mlp-model.ts';
import { syntheticMnistLike } from './synthetic.ts';

const [backend = 'wasm', batchArg = '512', stepsArg = '30', warmupArg = '5', kernels = 'stock'] = process.argv.slice(2);
const batch = Number(batchArg);
const steps = Number(stepsArg);
const warmup = Number(warmupArg);
await tf.setBackend(backend);
if (kernels === 'mgpu' && backend === 'wasm') registerWasmGradKernels(tf);
const model = buildModel(tf);
const opt = tf.train.sgd(0.01);
const { features, labels, count } = syntheticMnistLike(batch * 8);
const times: number[] = [];
for (let step = 0; step < steps + warmup; step++) {
  const start = (step * batch) % count;
  const t0 = performance.now();
  tf.tidy(() => {
    const x = tf.tensor2d(features.subarray(start * 784, (start + batch) * 784), [batch, 784]);
    const y = tf.tensor2d(labels.subarray(start * 10, (start + batch) * 10), [batch, 10]);
    opt.minimize(() => tf.mean(tf.metrics.categoricalCrossentropy(y, model.apply(x) as tf.Tensor)) as tf.Scalar);
  });
  if (step >= warmup) times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const median = times[times.length >> 1];
console.log(JSON.stringify({ backend: tf.getBackend(), kernels, batch, steps, median_step_ms: median, samples_per_sec: (batch * 1000) / median }));
