// The EMA with BatchNorm: the moving statistics are averaged over the towers by shard size, and
// the EMA then follows them as it follows the trainable weights (TensorFlow's
// ExponentialMovingAverage over every weight, d_t = min(decay, (1 + t) / (10 + t))). The
// reference trains the towers in one process and keeps the EMA itself; integration-ema has no
// BatchNorm, so the EMA of the averaged statistics (the reduce's averageState) is checked here.
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  flatWeights,
  initialWeights,
  silent,
  tempDir,
  towerReferenceTrain,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

test('EMA weights with BatchNorm on 2 uneven workers equal the EMA of the towers trained in one process', async (t) => {
  const dir = tempDir('ema-bn');
  const raw = {
    name: 'ema-bn',
    model: { module: writeModelModule(dir, 'batchnorm') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 35, 'onehot', 21) },
    training: { batchSize: 7, epochs: 2, seed: 5, ema: 0.9 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
  };
  const cfg = buildConfig(dir, raw, 2);
  const init = await initialWeights(cfg);
  const ema = Float32Array.from(init);
  const ref = await towerReferenceTrain(cfg, 2, {
    onStep(done, model) {
      const w = flatWeights(model);
      const keep = 1 - Math.min(0.9, (1 + done) / (10 + done));
      for (let i = 0; i < ema.length; i++) ema[i]! -= keep * (ema[i]! - w[i]!);
    },
  });
  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, ref.weights, 'weights');
  assertWeightsClose(t, r.ema!, ema, 'EMA (BatchNorm statistics included)', { initial: init });
  ref.model.dispose();
});
