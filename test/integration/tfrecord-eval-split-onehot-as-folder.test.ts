// A tfrecord data.eval beside a tfrecord data.train, with categoricalCrossentropy (one-hot rows
// made from the class indices): the same weights, the same evaluation and the same labels.json
// as the same digits in image folders, the eval split labelled with the training classes (it
// has records of fewer of them).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-eval');

test('tfrecord train and eval, one-hot labels: the bits, figures and labels.json of image folders', async () => {
  const trainDigits = await writeDigitFolder(path.join(dir, 'train'), 40);
  const evalDigits = await writeDigitFolder(path.join(dir, 'eval'), 12, { offset: 200 });
  assert.equal(new Set(trainDigits.labels).size, 10);
  writeDigitShards(trainDigits, path.join(dir, 'train-shards'), 2);
  writeDigitShards(evalDigits, path.join(dir, 'eval-shards'), 1);
  const shards = (sub: string) => ({ type: 'tfrecord', files: path.join(dir, sub, 'train-*'), image: 'image/encoded', label: 'image/class/label' });
  const run = (name: string, trainSrc: Record<string, unknown>, evalSrc: Record<string, unknown>) => {
    const cfg = buildConfig(
      dir,
      {
        name,
        model: { module: writeDigitModel(dir) },
        loss: 'categoricalCrossentropy',
        data: { train: { ...trainSrc, size: [28, 28], channels: 1 }, eval: { ...evalSrc, size: [28, 28], channels: 1 }, threads: 1 },
        training: { batchSize: 8, steps: 5, seed: 7 },
        optimizer: { name: 'sgd', learningRate: 0.5 },
      },
      2,
    );
    return train(cfg, silent).then((r) => ({ r, labels: fs.readFileSync(path.join(cfg.runDir, 'final', 'labels.json'), 'utf8') }));
  };
  const fromShards = await run('shards', shards('train-shards'), shards('eval-shards'));
  const fromFolders = await run('folders', { type: 'images', dir: trainDigits.dir }, { type: 'images', dir: evalDigits.dir });
  assert.deepEqual(Buffer.from(fromShards.r.weights.buffer), Buffer.from(fromFolders.r.weights.buffer));
  assert.equal(fromShards.r.eval!.samples, 12);
  assert.equal(fromShards.r.eval!.loss, fromFolders.r.eval!.loss);
  assert.equal(fromShards.r.eval!.accuracy, fromFolders.r.eval!.accuracy);
  assert.equal(fromShards.labels, fromFolders.labels);
  assert.deepEqual(JSON.parse(fromShards.labels), { classes: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'] });
});
