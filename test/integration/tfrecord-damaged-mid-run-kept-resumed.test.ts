// A shard damaged while the run trains (a byte of record 17's data flipped in place after step 2,
// so epoch 1 meets it) fails the run with an E_DATA error naming the split's shard, the record
// and its checksum, exit 2, the steps trained kept in a checkpoint; once the shard is written
// back, --resume rebuilds its index (its mtime changed) and ends with the uninterrupted run's bits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-mid-run');

test('a record damaged mid-run: E_DATA naming it, checkpoint kept, resumed to the same bits', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 60);
  const [shard] = writeDigitShards(digits, path.join(dir, 'shards'), 1) as [string];
  const raw = (name: string) => ({
    name,
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: {
      train: { type: 'tfrecord', files: shard, image: 'image/encoded', label: 'image/class/label', size: [28, 28], channels: 1 },
      threads: 1,
      prefetch: 1,
    },
    training: { batchSize: 20, epochs: 2, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  });
  const full = await train(buildConfig(dir, raw('full'), 2), silent);
  const good = fs.readFileSync(shard);
  let at = 0;
  for (let r = 0; r < 17; r++) at += 16 + good.readUInt32LE(at);
  const bad = Buffer.from(good);
  bad[at + 12 + 50]! ^= 0x10;
  const cfg = buildConfig(dir, raw('damaged'), 2);
  const breaksAfter2 = {
    ...silent,
    step: (step: number) => {
      if (step === 2) fs.writeFileSync(shard, bad);
    },
  };
  await assert.rejects(train(cfg, breaksAfter2), (e: Error & { code?: string; exitCode?: number; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.exitCode, 2);
    assert.match(e.message, new RegExp(`^shard ${shard} record 17 \\(at byte ${at}\\): the CRC-32C of its \\d+ data bytes does not match \\(damaged data\\)$`));
    assert.match(e.hint ?? '', /the last completed step \(\d\) is in .*checkpoints.*--resume/s);
    return true;
  });
  fs.writeFileSync(shard, good);
  const lines: string[] = [];
  const resumed = await train(cfg, { ...silent, line: (t: string) => void lines.push(t) }, { resume: cfg.runDir });
  assert.equal(resumed.steps, 6);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));
  assert.ok(
    lines.some((l) => /record indexes: 1 rebuilt \(train-00000-of-00001: the shard changed since it was indexed/.test(l)),
    lines.join('\n'),
  );
});
