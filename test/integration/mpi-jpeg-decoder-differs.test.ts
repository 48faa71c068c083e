// Two machines that would decode a run's JPEGs with different decoders (one with the native
// decoder, one with MGPU_JPEG_DECODER=sharp) refuse to train together before step 0: E_CONFIG
// naming both ranks and both decoders, exit 2. A run without images starts on such machines.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { jpegAddon } from '../../src/data/images/jpeg-native.ts';
import { writeConfigFile } from '../helpers/chaos.ts';
import { digitSource, writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';
import { nativeSkip } from '../helpers/native.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('mpi-jpeg');
const skip = nativeSkip(jpegAddon().reason ?? false);
const common = { training: { batchSize: 4, steps: 2 }, optimizer: { name: 'sgd' }, devices: { simulate: 1, backend: 'cpu' } };

test('rank 1 decodes JPEGs with sharp, rank 0 natively: E_CONFIG naming both, exit 2; without images they train', { skip }, async (t) => {
  if (!needMpi(t)) return;
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 60, { format: 'jpeg' });
  const images = writeConfigFile(dir, 'images', {
    ...common,
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: digitSource(digits.dir), threads: 1 },
    runDir: path.join(dir, 'run-images'),
  });
  const rankEnv: Array<Record<string, string>> = [{}, { MGPU_JPEG_DECODER: 'sharp' }];
  const r = await runMpi(
    [
      ['train', images],
      ['train', images],
    ],
    [],
    { rankEnv },
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_CONFIG: rank 1 \(.*\) decodes JPEGs with sharp, rank 0 \(.*\) with libjpeg-turbo [\d.]+: their images' pixels would differ/);
  const npy = writeConfigFile(dir, 'npy', {
    ...common,
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 20, 'onehot', 1) },
    runDir: path.join(dir, 'run-npy'),
  });
  const ok = await runMpi(
    [
      ['train', npy],
      ['train', npy],
    ],
    [],
    { rankEnv },
  );
  assert.equal(ok.code, 0, ok.stderr);
});
