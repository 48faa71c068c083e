// The EMA of the weights follows TensorFlow's ExponentialMovingAverage with num_updates:
// ema -= (1 - d_t) (ema - w) after every update, d_t = min(decay, (1 + t) / (10 + t)),
// over every weight (BatchNorm moving statistics included), starting from the initial weights.
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  flatWeights,
  initialWeights,
  referenceTrain,
  silent,
  tempDir,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

test('EMA weights on 2 workers equal the EMA of single-process training', async (t) => {
  const dir = tempDir('ema');
  const raw = {
    name: 'ema',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 32, 'onehot', 9) },
    training: { batchSize: 8, epochs: 3, seed: 4, ema: 0.95 },
    optimizer: { name: 'momentum', learningRate: 0.2 },
  };
  const cfg = buildConfig(dir, raw, 1);
  const init = await initialWeights(cfg);
  const ema = Float32Array.from(init);
  const ref = await referenceTrain(cfg, {
    onStep(done, model) {
      const w = flatWeights(model);
      const keep = 1 - Math.min(0.95, (1 + done) / (10 + done));
      for (let i = 0; i < ema.length; i++) ema[i]! -= keep * (ema[i]! - w[i]!);
    },
  });
  const r = await train(buildConfig(dir, raw, 2), silent);
  assertWeightsClose(t, r.weights, ref.weights, 'weights');
  assertWeightsClose(t, r.ema!, ema, 'EMA', { initial: init });
  ref.model.dispose();
});
