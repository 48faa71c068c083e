// A tar shard with a sample missing its .cls, given to `mgpu-train train`, exits 2 before
// training (no metrics.jsonl, no checkpoint) with an E_DATA error naming the split, the shard and
// the sample key, and listing the parts the sample has.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { refusedBeforeTraining } from '../helpers/digit-shard-run.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

test('a sample without its .cls in shard 2: exit 2 before training, naming it', async () => {
  const dir = tempDir('webdataset-bad-sample');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 8);
  fs.mkdirSync(path.join(dir, 'shards'));
  const shard = (k: number) => path.join(dir, 'shards', `train-${k}.tar`);
  const members = (from: number) =>
    digits.files.slice(from, from + 4).flatMap((f, i) => [
      { name: `s${from + i}.png`, data: fs.readFileSync(f) },
      { name: `s${from + i}.cls`, data: String(digits.labels[from + i]!) },
    ]);
  const second = members(4).filter((m) => m.name !== 's6.cls');
  writeTarShards([
    { path: shard(0), members: members(0) },
    { path: shard(1), members: second },
  ]);
  const r = await refusedBeforeTraining(dir, { type: 'webdataset', shards: './shards/train-{0..1}.tar', image: 'png', size: [28, 28], channels: 1 });
  assert.equal(r.error, `error E_DATA: data.train: shard ${shard(1)} sample s6: it has no label part (.cls; it has .png)`);
  assert.match(r.stderr, /hint: write the shard again with one image and one label part per sample/);
});
