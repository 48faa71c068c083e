// A conv net with nearest upsampling (conv 3x3 -> upSampling2d x2 -> conv 1x1: 4x4 in, 8x8 out)
// trains on the cpu backend, N=2 with uneven shards (global batch 7: 4 + 3), to the weights of a
// reference whose upsampling is written as a reshape and a broadcast (so it never runs tfjs-backend-cpu's
// ResizeNearestNeighborGrad, wrong for a shard of more than one image), trained by tf.train.sgd
// on the mean squared error over every pixel.
import { test } from 'node:test';
import type { Rank, Scalar, Tensor, Tensor4D, Variable } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { writeFeatures, writeLabels, writeLayersModule } from '../helpers/positional-output.ts';
import { assertWeightsClose, buildConfig, buildReferenceModel, initialWeights, loadTf, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('upsampling-cpu');
const COUNT = 20;

test('upSampling2d (nearest) on --backend cpu, N=2: the weights of a reshape + broadcast reference', async (t) => {
  const x = writeFeatures(dir, 'train', COUNT, [4, 4, 1], 71);
  // The target: each input pixel's value spread over its 2x2 block, squashed, with a ramp across the image.
  const yData = new Float32Array(COUNT * 64);
  for (let n = 0; n < COUNT; n++)
    for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) yData[n * 64 + r * 8 + c] = Math.tanh(2 * x.x.data[n * 16 + (r >> 1) * 4 + (c >> 1)]!) + 0.05 * c;
  const y: NdArray = { dtype: 'float32', shape: [COUNT, 8, 8, 1], data: yData };
  const raw = {
    name: 'upsampling',
    model: {
      module: writeLayersModule(
        dir,
        'upsampling',
        `tf.layers.conv2d({ inputShape: [4, 4, 1], filters: 2, kernelSize: 3, padding: 'same', activation: 'tanh' }),
         tf.layers.upSampling2d({ size: [2, 2] }),
         tf.layers.conv2d({ filters: 1, kernelSize: 1 }),`,
      ),
    },
    loss: 'meanSquaredError',
    data: { train: { type: 'npy', features: x.file, labels: writeLabels(dir, 'train', y) } },
    training: { batchSize: 7, epochs: 2, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 2, 'cpu');

  // The reference: the model's initial weights, its forward pass in plain ops.
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const [k1, b1, k2, b2] = model.trainableWeights.map((w) => tf.variable(w.read())) as [Variable, Variable, Variable, Variable];
  model.dispose();
  const forward = (xb: Tensor4D): Tensor => {
    const n = xb.shape[0];
    const h = tf.tanh(tf.add(tf.conv2d(xb, k1 as Tensor4D, 1, 'same'), b1));
    const up = tf.reshape<Rank.R4>(tf.mul(tf.reshape(h, [n, 4, 1, 4, 1, 2]), tf.ones([1, 1, 2, 1, 2, 1])), [n, 8, 8, 2]);
    return tf.add(tf.conv2d(up, k2 as Tensor4D, 1, 'valid'), b2);
  };
  const xs = tf.tensor4d(x.x.data, [COUNT, 4, 4, 1]);
  const ys = tf.tensor4d(yData, [COUNT, 8, 8, 1]);
  const sgd = tf.train.sgd(0.5);
  const plan = new BatchPlan(COUNT, 7, 3, false, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const [xb, yb] = [tf.gather(xs, idx), tf.gather(ys, idx)];
    sgd.minimize(() => tf.mean<Scalar>(tf.square(tf.sub(forward(xb), yb))), false, [k1, b1, k2, b2]);
    tf.dispose([idx, xb, yb]);
  }
  const parts = [k1, b1, k2, b2].map((v) => v.dataSync() as Float32Array);
  const want = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  parts.reduce((at, p) => (want.set(p, at), at + p.length), 0);
  tf.dispose([xs, ys, k1, b1, k2, b2]);
  sgd.dispose();

  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, want, 'upsampling on cpu, N=2', { initial: await initialWeights(cfg) });
});
