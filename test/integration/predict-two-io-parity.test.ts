// predict on a model with two inputs (image, meta) and two outputs (class, box), on 2 workers
// with uneven shards (13 rows in chunks of 5: 3 + 2, 3 + 2, 2 + 1), returns each output, by
// name in the model's order, equal to plain single-process tfjs: the saved final/ model loaded
// on its own with tf.loadLayersModel (cpu backend) and model.predict on the same rows.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { predict } from '../../src/api.ts';
import { train } from '../../src/coordinator/train.ts';
import { readLayersModel } from '../../src/shared/model-files.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { assertClose } from '../helpers/close.ts';
import { buildConfig, loadTf, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

test('two inputs, two outputs: predict on 2 uneven workers equals model.predict of the saved model, output by output', async () => {
  const dir = tempDir('predict-two-io');
  const cfg = buildConfig(
    dir,
    {
      name: 'predict-two-io',
      model: { module: writeTwoIoModel(dir) },
      loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
      data: { train: { type: 'npy', ...writeTwoIoData(dir, 'train', 20, 1) } },
      training: { batchSize: 5, epochs: 1, seed: 4 },
      eval: { batchSize: 5 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    },
    2,
  );
  const trained = await train(cfg, silent);
  const final = path.dirname(trained.modelPath!);
  const rows = writeTwoIoData(dir, 'new', 13, 7).features; // { meta, image }: not the model's order
  const r = await predict(cfg, { checkpoint: final, input: { meta: rows.meta, image: rows.image }, print: false });

  const tf = await loadTf();
  const model = await tf.loadLayersModel({ load: async () => readLayersModel(path.join(final, 'model.json')) as never });
  const x = (file: string) => {
    const a = readNpy(file);
    return tf.tensor(a.data, a.shape);
  };
  const [image, meta] = [x(rows.image), x(rows.meta)];
  const want = model.predict([image, meta]) as Tensor[];

  assert.deepEqual(Object.keys(r.outputs), ['class', 'box'], 'outputs by name, in the model order');
  assert.deepEqual(r.outputs.class!.shape, [13, 3]);
  assert.deepEqual(r.outputs.box!.shape, [13, 2]);
  assertClose(r.outputs.class!.values, want[0]!.dataSync(), 1e-5, 1e-6, 'class');
  assertClose(r.outputs.box!.values, want[1]!.dataSync(), 1e-5, 1e-6, 'box');
  // values and shape: the first output's, as for a model with one.
  assert.equal(r.values, r.outputs.class!.values);
  assert.deepEqual(r.shape, [13, 3]);
  assert.equal(r.classes, null);
  tf.dispose([image, meta, ...want]);
  model.dispose();
});
