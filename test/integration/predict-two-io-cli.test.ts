// `mgpu-train predict` on a model with two inputs and two outputs: --input name=file.npy once
// per input (in any order), --output <dir> writes <dir>/class.npy and <dir>/box.npy (float32,
// [rows, ...output shape]), the directory created in its existing parent, and the values equal
// those of the library API's predict on the same rows.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { predict } from '../../src/api.ts';
import { train } from '../../src/coordinator/train.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

test('predict --input image=… --input meta=… --output dir writes one .npy per output', async () => {
  const dir = tempDir('predict-two-io-cli');
  const raw = {
    name: 'predict-two-io-cli',
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    data: { train: { type: 'npy', ...writeTwoIoData(dir, 'train', 12, 1) } },
    training: { batchSize: 4, epochs: 1, seed: 2 },
    eval: { batchSize: 4 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
    devices: { simulate: 2, backend: 'cpu' },
  };
  const cfg = buildConfig(dir, raw, 2);
  const final = path.dirname((await train(cfg, silent)).modelPath!);
  const rows = writeTwoIoData(dir, 'new', 9, 5).features;
  const file = writeConfigFile(dir, 'predict', { ...raw, runDir: cfg.runDir });
  const out = path.join(dir, 'preds');
  const r = await runCliAsync(['predict', file, '--checkpoint', final, '--input', `meta=${rows.meta}`, '--input', `image=${rows.image}`, '--output', out]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /predicted 9 rows with 2 workers → .*preds \(class float32 \[9, 3\], box float32 \[9, 2\]\)/);
  assert.deepEqual(fs.readdirSync(out).sort(), ['box.npy', 'class.npy']);
  const cls = readNpy(path.join(out, 'class.npy'));
  const box = readNpy(path.join(out, 'box.npy'));
  assert.equal(cls.dtype, 'float32');
  assert.deepEqual(cls.shape, [9, 3]);
  assert.equal(box.dtype, 'float32');
  assert.deepEqual(box.shape, [9, 2]);
  const api = await predict(cfg, { checkpoint: final, input: { image: rows.image, meta: rows.meta }, print: false });
  assert.deepEqual(Array.from(cls.data), Array.from(api.outputs.class!.values));
  assert.deepEqual(Array.from(box.data), Array.from(api.outputs.box!.values));
});
