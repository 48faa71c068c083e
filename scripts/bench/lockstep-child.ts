// A plain tfjs process for the lock-step ceiling: on every 'go' it trains one step of its own
// (optimizer.minimize on its rows, the same as plain-tfjs.ts) and answers with the time it took.
// No gradients or weights are exchanged.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import buildModel from './mlp-model.ts';
import { syntheticMnistLike } from './synthetic.ts';

const [backend = 'wasm', rowsArg = '256', kernels = 'stock'] = process.argv.slice(2);
const rows = Number(rowsArg);
await tf.setBackend(backend);
if (kernels === 'mgpu' && backend === 'wasm') registerWasmGradKernels(tf);
const model = buildModel(tf);
const opt = tf.train.sgd(0.01);
const { features, labels } = syntheticMnistLike(rows);
process.on('message', () => {
  const t0 = performance.now();
  tf.tidy(() => {
    const x = tf.tensor2d(features, [rows, 784]);
    const y = tf.tensor2d(labels, [rows, 10]);
    opt.minimize(() => tf.mean(tf.metrics.categoricalCrossentropy(y, model.apply(x) as tf.Tensor)) as tf.Scalar);
  });
  process.send!(performance.now() - t0);
});
process.send!(0);
