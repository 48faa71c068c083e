// A tar shard damaged while the run trains (a byte of sample 17's image member header flipped in
// place after step 2, so epoch 1 meets it) fails the run with an E_DATA error naming the shard and
// the header's byte, exit 2, the steps trained kept in a checkpoint; once the shard is written
// back, --resume rebuilds its index (its mtime changed) and ends with the uninterrupted run's bits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { scanTarShard } from '../../src/data/shards/webdataset-scan.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeDigitTars } from '../helpers/webdataset-shards.ts';

const dir = tempDir('webdataset-mid-run');

test('a sample damaged mid-run: E_DATA naming it, checkpoint kept, resumed to the same bits', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 60);
  const [shard] = writeDigitTars(digits, path.join(dir, 'shards'), 1) as [string];
  const raw = (name: string) => ({
    name,
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'webdataset', shards: shard, image: 'png', size: [28, 28], channels: 1 }, threads: 1, prefetch: 1 },
    training: { batchSize: 20, epochs: 2, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  });
  const full = await train(buildConfig(dir, raw('full'), 2), silent);
  const good = fs.readFileSync(shard);
  const header = scanTarShard(shard, good.length, { image: ['png'], label: 'cls' }).offsets[17]! - 512;
  const bad = Buffer.from(good);
  bad[header + 3] = bad[header + 3]! ^ 0x01; // a byte of its name
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
    assert.match(e.message, new RegExp(`^shard ${shard}: the tar header at byte ${header}: its checksum does not match`));
    assert.match(e.hint ?? '', /the last completed step \(\d\) is in .*checkpoints.*--resume/s);
    return true;
  });
  fs.writeFileSync(shard, good);
  const lines: string[] = [];
  const resumed = await train(cfg, { ...silent, line: (t: string) => void lines.push(t) }, { resume: cfg.runDir });
  assert.equal(resumed.steps, 6);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));
  assert.ok(
    lines.some((l) => /sample indexes: 1 rebuilt \(train-000000\.tar: the shard changed since it was indexed/.test(l)),
    lines.join('\n'),
  );
});
