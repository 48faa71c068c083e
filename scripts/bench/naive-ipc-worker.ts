// The naive way, for comparison: a worker that sends its gradients and receives new weights as
// Node IPC messages (structured clone of Float32Arrays), with no shared memory at all.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import buildModel from './mlp-model.ts';
import { syntheticMnistLike } from './synthetic.ts';

type Msg =
  | { type: 'init'; rows: number; backend: string; replaceWasmKernels: boolean }
  | { type: 'step'; start: number; n: number; batch: number; weights?: Float32Array };

let model: tf.LayersModel;
let vars: tf.Variable[];
let data: ReturnType<typeof syntheticMnistLike>;

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a rejection ends this bench child (Node's default), as the bench wants
process.on('message', async (m: Msg) => {
  if (m.type === 'init') {
    await tf.setBackend(m.backend);
    // The kernels mgpu-train's workers use, so the two loops differ only in how they communicate.
    if (m.backend === 'wasm' && m.replaceWasmKernels) registerWasmGradKernels(tf);
    model = buildModel(tf);
    vars = model.trainableWeights.map((w) => (w as unknown as { val: tf.Variable }).val);
    data = syntheticMnistLike(m.rows);
    const flat = new Float32Array(vars.reduce((a, v) => a + v.size, 0));
    let at = 0;
    for (const v of vars) {
      flat.set(v.dataSync(), at);
      at += v.size;
    }
    process.send!({ type: 'ready', weights: flat });
    return;
  }
  if (m.weights) {
    let at = 0;
    for (const v of vars) {
      v.assign(tf.tensor(m.weights.slice(at, at + v.size), v.shape));
      at += v.size;
    }
  }
  const grads = tf.tidy(() => {
    const x = tf.tensor2d(data.features.subarray(m.start * 784, (m.start + m.n) * 784), [m.n, 784]);
    const y = tf.tensor2d(data.labels.subarray(m.start * 10, (m.start + m.n) * 10), [m.n, 10]);
    const { grads: g } = tf.variableGrads(
      () => tf.mul<tf.Scalar>(tf.sum(tf.metrics.categoricalCrossentropy(y, model.apply(x) as tf.Tensor)), 1 / m.batch),
      vars,
    );
    return vars.map((v) => g[v.name]!);
  });
  const flat = new Float32Array(vars.reduce((a, v) => a + v.size, 0));
  let at = 0;
  for (const g of grads) {
    flat.set(g.dataSync(), at);
    at += g.size;
  }
  tf.dispose(grads);
  process.send!({ type: 'grads', grads: flat });
});
