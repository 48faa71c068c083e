// Augmented rows are a function of (seed, epoch, sample) only: training on 3 workers from an
// augmented folder equals training on 3 workers from an .npy of the rows a lone pipeline made
// for epoch 0 (the rows themselves are checked against tfjs in images-augment-reference); a
// rerun is the same bits; a run stopped mid-epoch and resumed equals the uninterrupted run.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { loadImages } from '../../src/data/images/load-images.ts';
import { train } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { digitSource, writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { interruptAfter } from '../helpers/eval-watch-fixture.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-augment');
const N = 40;
const SEED = 6;
const augment = { flip: 'horizontal', crop: { padding: 3 }, randomResizedCrop: null, brightness: 0.3, contrast: null } as const;
const bits = (w: Float32Array) => Buffer.from(w.buffer);

test('augmented training: the same rows on 3 workers, the same bits on a rerun and after a mid-epoch resume', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), N);
  const folder = digitSource(digits.dir, { augment });
  const model = { module: writeDigitModel(dir) };
  const raw = (name: string, data: unknown, more: Record<string, unknown> = {}) => ({
    name,
    model,
    loss: 'sparseCategoricalCrossentropy',
    data: { train: data, threads: 2 },
    training: { batchSize: 10, steps: 4, seed: SEED },
    optimizer: { name: 'sgd', learningRate: 0.5 },
    ...more,
  });
  // Epoch 0's augmented rows, made by a pipeline alone (no workers, no loop), in sample order.
  const lone = loadImages(folder, 'data.train', null, { threads: 1, prefetch: 1, seed: SEED, localWorkers: 1 });
  const all = Uint32Array.from({ length: N }, (_, i) => i);
  await lone.pipeline.ready(all, 0);
  const rows = new Float32Array(N * 784);
  lone.features.gather(all, new Uint8Array(rows.buffer), 0, 0);
  await lone.pipeline.close();
  const features = path.join(dir, 'x.npy');
  const labels = path.join(dir, 'y.npy');
  writeNpy(features, { dtype: 'float32', shape: [N, 28, 28, 1], data: rows });
  writeNpy(labels, { dtype: 'int32', shape: [N], data: digits.labels });
  const fromNpy = await train(buildConfig(dir, raw('npy', { type: 'npy', features, labels }), 3), silent);
  const fromFolder = await train(buildConfig(dir, raw('folder', folder), 3), silent);
  assert.deepEqual(bits(fromFolder.weights), bits(fromNpy.weights), 'epoch 0 on 3 workers: the lone pipeline rows');

  // 3 epochs of 4 steps; stopped at step 6, in the middle of epoch 1.
  const long = { training: { batchSize: 10, steps: 12, seed: SEED }, checkpoint: { every: 3 } };
  const full = await train(buildConfig(dir, raw('full', folder, long), 2), silent);
  const again = await train(buildConfig(dir, raw('again', folder, long), 2), silent);
  assert.deepEqual(bits(again.weights), bits(full.weights), 'rerun');
  const cut = interruptAfter(6);
  const cfg = buildConfig(dir, raw('cut', folder, long), 2);
  const first = await train(cfg, cut.progress, { signals: cut.signals });
  assert.equal(first.steps, 6);
  const resumed = await train(cfg, silent, { resume: cfg.runDir });
  assert.equal(resumed.steps, 12);
  assert.deepEqual(bits(resumed.weights), bits(full.weights), 'resumed mid-epoch');
});
