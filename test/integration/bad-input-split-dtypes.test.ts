// Train and eval features of different dtypes (float32 and uint8) cannot share one row layout:
// the error names each split's file and its dtype, not a JSON dump of the layouts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('float32 train features and uint8 eval features: both files and both dtypes', () => {
  const dir = tempDir('split-dtypes');
  const model = writeModelModule(dir, 'mlp');
  const train = writeDataset(dir, 'train', 16, 'onehot', 1);
  const evalSet = writeDataset(dir, 'eval', 8, 'onehot', 2);
  const x = readNpy(evalSet.features);
  const bytes = path.join(dir, 'eval-x-uint8.npy');
  writeNpy(bytes, { dtype: 'uint8', shape: x.shape, data: Uint8Array.from(x.data, (v) => Math.min(255, Math.max(0, Math.round(Math.abs(v) * 100)))) });
  const cfg = path.join(dir, 'exp.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      model: { module: model },
      loss: 'categoricalCrossentropy',
      data: { train, eval: { ...evalSet, features: bytes } },
      training: { batchSize: 8, steps: 2 },
      optimizer: { name: 'sgd' },
    }),
  );
  const r = runCli(['train', cfg, '--simulate', '1', '--backend', 'cpu', '--run-dir', path.join(dir, 'run')]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(
    r.stderr.split('\n').find((l) => l.startsWith('error ')),
    `error E_DATA: data.eval's features (${bytes}) are uint8 but data.train's (${train.features}) are float32`,
  );
  assert.match(r.stderr, /hint: save both splits' features with one dtype/);
  assert.doesNotMatch(r.stderr, /\{"parts"/);
});
