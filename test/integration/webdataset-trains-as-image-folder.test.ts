// WebDataset tar shards written by an independent writer (Python's tarfile) from the PNGs of a
// digit folder, in the folder's order over 3 shards, train on 2 simulated workers to the same bits
// as the folder itself (type: images) with the same seed and augmentation: the same samples in the
// same seeded order, decoded and augmented alike. The run header says what was found and that the
// sample indexes were built and the .txt captions passed over; the next run reads them.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeDigitTars } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-parity');
const N = 48;

test('3 tar shards of a digit folder train the bits the folder trains, on 2 workers', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), N);
  assert.equal(new Set(digits.labels).size, 10, 'every class has a digit (the folder then has the 10 classes the .cls parts number)');
  writeDigitTars(digits, path.join(dir, 'shards'), 3, true); // with a .txt caption a sample: counted, not read
  const model = { module: writeDigitModel(dir) };
  const decoding = { size: [28, 28], channels: 1, augment: { flip: 'horizontal', crop: { padding: 2 } } };
  const run = (name: string, source: Record<string, unknown>, lines: string[] = []) =>
    train(
      buildConfig(
        dir,
        {
          name,
          model,
          loss: 'sparseCategoricalCrossentropy',
          data: { train: { ...source, ...decoding }, threads: 2 },
          training: { batchSize: 8, steps: 9, seed: 5 },
          optimizer: { name: 'sgd', learningRate: 0.5 },
        },
        2,
      ),
      { ...silent, line: (text: string) => void lines.push(text) },
    );
  const shards = { type: 'webdataset', shards: path.join(dir, 'shards', 'train-{000000..000002}.tar'), image: ['jpg', 'png'], label: 'cls' };
  const lines: string[] = [];
  const fromShards = await run('shards', shards, lines);
  const fromFolder = await run('folder', { type: 'images', dir: digits.dir });
  assert.equal(fromShards.steps, 9);
  assert.deepEqual(Buffer.from(fromShards.weights.buffer), Buffer.from(fromFolder.weights.buffer));
  const input = lines.find((l) => l.includes('webdataset shards'));
  assert.ok(input?.includes(`: ${N} samples in 3 shards (${N} members of unknown extensions passed over), 10 classes, 28x28x1 float32, `), input);
  assert.ok(input?.includes('sample indexes: 3 built, kept beside the shards'), input);
  const again: string[] = [];
  const second = await run('shards-again', shards, again);
  assert.deepEqual(Buffer.from(second.weights.buffer), Buffer.from(fromShards.weights.buffer), 'rerun from the kept indexes');
  assert.ok(
    again.some((l) => l.includes('sample indexes: 3 read, kept beside the shards')),
    again.join('\n'),
  );
});
