// The example models, and a conv net with BatchNorm and dropout, get every gradient on webgpu
// (Dawn + tfjs-backend-webgpu, in this process) equal to the cpu backend's, and pass the worker's
// op check there. A GPU kernel sums float32 in another order than the cpu backend, so: rtol 1e-3
// with an atol floor of 1e-5 x max|expected| per variable (and never under 1e-7).
import { test, after } from 'node:test';
import type * as tfjs from '@tensorflow/tfjs';
import { withSeededMathRandom } from '../../src/shared/rng.ts';
import { installDawn } from '../../src/worker/backend.ts';
import { checkModelOps } from '../../src/worker/op-check.ts';
import buildMlp from '../../examples/mnist-mlp/model.ts';
import buildCnn from '../../examples/mnist-cnn/model.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';
import { needWebgpu } from '../helpers/webgpu.ts';

type TF = typeof tfjs;

function bnDropoutCnn(tf: TF): tfjs.LayersModel {
  return tf.sequential({
    layers: [
      tf.layers.conv2d({ inputShape: [12, 12, 1], filters: 6, kernelSize: 3, padding: 'same', strides: 2 }),
      tf.layers.batchNormalization({ momentum: 0.8 }),
      tf.layers.activation({ activation: 'relu' }),
      tf.layers.depthwiseConv2d({ kernelSize: 3, depthMultiplier: 2, activation: 'relu' }),
      tf.layers.averagePooling2d({ poolSize: 2 }),
      tf.layers.flatten(),
      tf.layers.dropout({ rate: 0.3 }),
      tf.layers.dense({ units: 10, activation: 'softmax' }),
    ],
  });
}

async function gradients(tf: TF, model: tfjs.LayersModel, x: Float32Array, y: Float32Array, rows: number): Promise<Map<string, Float32Array>> {
  const vars = model.trainableWeights.map((w) => (w as unknown as { val: tfjs.Variable }).val);
  const { value, grads } = withSeededMathRandom(1, () =>
    tf.variableGrads(() => {
      const xs = tf.tensor(x, [rows, ...(model.inputs[0]!.shape.slice(1) as number[])]);
      const pred = model.apply(xs, { training: true }) as tfjs.Tensor;
      return tf.mean<tfjs.Scalar>(tf.metrics.categoricalCrossentropy(tf.tensor(y, pred.shape), pred));
    }, vars),
  );
  const out = new Map<string, Float32Array>();
  for (const v of vars) out.set(v.name, (await grads[v.name]!.data()) as Float32Array);
  tf.dispose([value, ...Object.values(grads)]);
  return out;
}

let tf: TF | null = null;
let releaseDawn = () => {};
after(() => {
  // Dawn keeps the process alive while navigator.gpu refers to it.
  if (tf?.findBackend('webgpu')) tf.removeBackend('webgpu');
  releaseDawn();
});

const MODELS: [string, (tf: TF) => tfjs.LayersModel, number][] = [
  ['examples/mnist-mlp', (t) => buildMlp(t), 784],
  ['examples/mnist-cnn', (t) => buildCnn(t), 784],
  ['conv + BatchNorm + depthwise + avg-pool + dropout', bnDropoutCnn, 144],
];

for (const [name, build, features] of MODELS) {
  test(`${name}: every gradient on webgpu equals the cpu backend's; the op check passes`, async (t) => {
    if (!(await needWebgpu(t))) return;
    if (!tf) {
      releaseDawn = (await installDawn()).release;
      tf = await import('@tensorflow/tfjs');
      await import('@tensorflow/tfjs-backend-webgpu');
      tf.env().set('PROD', true);
    }
    const rows = 6;
    const rng = seededRandom(7);
    const x = randomUniform(rng, rows * features, 0, 1);
    const y = new Float32Array(rows * 10);
    for (let r = 0; r < rows; r++) y[r * 10 + Math.floor(rng() * 10)] = 1;
    await tf.setBackend('cpu');
    const model = withSeededMathRandom(3, () => build(tf!));
    const onCpu = await gradients(tf, model, x, y, rows);
    await tf.setBackend('webgpu');
    checkModelOps(tf, model, 'webgpu');
    const onGpu = await gradients(tf, model, x, y, rows);
    for (const [v, expected] of onCpu) {
      let max = 0;
      for (const e of expected) max = Math.max(max, Math.abs(e));
      // A bias in front of BatchNorm has a gradient of zero up to rounding (~1e-9): hence the 1e-7 floor.
      assertClose(onGpu.get(v)!, expected, 1e-3, Math.max(1e-5 * max, 1e-7), `${name}: ${v}`);
    }
    model.dispose();
  });
}
