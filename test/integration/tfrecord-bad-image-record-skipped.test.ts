// data.onBadSample: skip with a record whose image does not decode (a PNG cut to 30 bytes inside
// a well-formed Example): the record is left out of its batch each epoch, as a bad-sample line
// naming the shard, the record and the feature, and the run ends with the bits of the image
// folder holding the same truncated file. Without skip, the run fails naming the record.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-skip');
const N = 40;
const BAD = 11;

test('an undecodable record image is skipped and named, as the same bad file in a folder', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), N);
  const victim = digits.files[BAD]!;
  fs.writeFileSync(victim, fs.readFileSync(victim).subarray(0, 30));
  const [first, second] = writeDigitShards(digits, path.join(dir, 'shards'), 2) as [string, string];
  const raw = (name: string, source: Record<string, unknown>, onBadSample = 'skip') => ({
    name,
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { ...source, size: [28, 28], channels: 1 }, threads: 1, prefetch: 1, onBadSample },
    training: { batchSize: 10, epochs: 2, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  });
  const shards = { type: 'tfrecord', files: path.join(dir, 'shards', 'train-*'), image: 'image/encoded', label: 'image/class/label' };
  const cfg = buildConfig(dir, raw('shards', shards), 2);
  const fromShards = await train(cfg, silent);
  const fromFolder = await train(buildConfig(dir, raw('folder', { type: 'images', dir: digits.dir }), 2), silent);
  assert.equal(fromShards.steps, 8);
  assert.deepEqual(Buffer.from(fromShards.weights.buffer), Buffer.from(fromFolder.weights.buffer));
  const bad = fs
    .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; sample?: number; epoch?: number; message?: string })
    .filter((m) => m.type === 'bad-sample');
  assert.deepEqual(
    bad.map((b) => [b.epoch, b.sample]),
    [
      [0, BAD],
      [1, BAD],
    ],
  );
  const at = [...Array(BAD)].reduce((a: number) => a + 16 + fs.readFileSync(first).readUInt32LE(a), 0);
  const said = new RegExp(`^shard ${first} record ${BAD} \\(at byte ${at}\\): cannot decode its image \\(feature "image/encoded", 30 bytes\\): `);
  assert.ok(
    bad.every((b) => said.test(b.message!)),
    JSON.stringify(bad),
  );
  assert.ok(fs.existsSync(second));
  await assert.rejects(train(buildConfig(dir, raw('no-skip', shards, 'error'), 2), silent), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.match(e.message, said);
    return true;
  });
});
