// A tfrecord source's x / y (float_list and int64_list features as a functional model's two
// inputs and two outputs) trains on 2 workers to the same bits as the same values in named .npy
// files: the records, written by the Python writer in 2 shards (one input's floats unpacked, the
// class an int64 of shape []), are read in the shards' order into the same rows; the header says
// how many records and shards were found and that their indexes were built.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeShards, type PyRecord } from '../helpers/tfrecord-shards.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

const dir = tempDir('tfrecord-features');
const N = 30;

test('x / y features of 2 Python-written shards train the bits their values in .npy files train', async () => {
  const files = writeTwoIoData(dir, 'train', N, 1);
  const rows = (f: string, width: number) => {
    const data = readNpy(f).data as Float32Array | Int32Array;
    return Array.from({ length: N }, (_, i) => Array.from(data.subarray(i * width, (i + 1) * width)));
  };
  const [image, meta, cls, box] = [rows(files.features.image, 4), rows(files.features.meta, 3), rows(files.labels.class, 1), rows(files.labels.box, 2)];
  const record = (i: number): PyRecord => ({
    features: {
      'x/image': { float: image[i]! },
      'x/meta': { float: meta[i]!, packed: false },
      'y/class': { int64: cls[i]! },
      'y/box': { float: box[i]! },
      'ignored/text': { bytes: [new TextEncoder().encode('not read')] },
    },
  });
  const shards = [0, 1].map((k) => ({ path: path.join(dir, `part-${k}.tfrecord`), records: Array.from({ length: N / 2 }, (_, i) => record(k * (N / 2) + i)) }));
  writeShards(shards);
  const raw = (name: string, train: Record<string, unknown>) => ({
    name,
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    data: { train },
    training: { batchSize: 7, epochs: 2, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
  });
  const tfrecord = {
    type: 'tfrecord',
    files: path.join(dir, 'part-*.tfrecord'),
    x: { meta: { key: 'x/meta', shape: [3] }, image: { key: 'x/image', shape: [4] } },
    y: { class: { key: 'y/class', shape: [] }, box: { key: 'y/box', shape: [2] } },
  };
  const lines: string[] = [];
  const fromShards = await train(buildConfig(dir, raw('shards', tfrecord), 2), { ...silent, line: (l: string) => void lines.push(l) });
  const fromNpy = await train(buildConfig(dir, raw('npy', { type: 'npy', ...files }), 2), silent);
  assert.equal(fromShards.steps, 10);
  const said = `  input       tfrecord files ${tfrecord.files}: ${N} records in 2 shards, x / y features read whole; record indexes: 2 built, kept beside the shards`;
  assert.ok(lines.includes(said), lines.join('\n'));
  assert.deepEqual(Buffer.from(fromShards.weights.buffer), Buffer.from(fromNpy.weights.buffer));
});
