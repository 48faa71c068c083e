// data.evalFraction on an augmented images split: the held-out rows are the images as they
// are (the rows the same split gives without augment), while the training rows are augmented.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { range } from '../../src/data/columns.ts';
import type { Dataset } from '../../src/data/rows.ts';
import { loadSplits } from '../../src/data/splits.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { writeDigitFolder } from '../helpers/digit-images.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-holdout-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');

const config = (augment: unknown) =>
  validateConfig(
    {
      model: { module: './model.mjs' },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'images', dir: './digits', size: [28, 28], channels: 1, augment }, evalFraction: 0.25, threads: 1 },
      training: { batchSize: 4, seed: 3 },
      optimizer: { name: 'sgd' },
    },
    { configPath: path.join(dir, 'exp.yaml'), cwd: dir },
  );

async function rows(ds: Dataset, epoch: number): Promise<Uint8Array> {
  const idx = range(ds.count);
  await ds.pipeline!.ready(idx, epoch);
  const out = new Uint8Array(ds.count * 784 * 4);
  ds.features.gather(idx, out, 0, epoch);
  return out;
}

test('held-out rows are not augmented; training rows are', async () => {
  await writeDigitFolder(path.join(dir, 'digits'), 40);
  const aug = await loadSplits(config({ flip: 'horizontal', crop: { padding: 4 } }));
  const plain = await loadSplits(config(null));
  try {
    assert.equal(aug.eval!.count, 10);
    assert.deepEqual(await rows(aug.eval!, 0), await rows(plain.eval!, 0), 'held-out rows as they are');
    assert.notDeepEqual(await rows(aug.train, 0), await rows(plain.train, 0), 'training rows augmented');
  } finally {
    for (const s of [aug, plain]) await Promise.all([s.train.pipeline?.close(), s.eval?.pipeline?.close()]);
  }
});
