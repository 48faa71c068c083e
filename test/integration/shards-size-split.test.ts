// --shard-size: a shard is closed before the next sample would take it past the size, not
// earlier, and a sample larger than the size alone gets a shard of its own; for TFRecord (a
// record is 16 bytes of framing and its Example) and for WebDataset tar (512-byte blocks, the
// two zero blocks that end a tar counted in). Sizes as Python's readers find the files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { mulberry32 } from '../../src/shared/rng.ts';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { readTars, readTfRecords, visibleFiles } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const dir = tempDir('shards-size');
const LIMIT = 5000; // --shard-size 5KB: a tar's samples are 2,048 bytes here, two and the trailer 5,120

/** A PNG of noise, far larger than the limit. */
async function writeBigImage(file: string): Promise<number> {
  const side = 96;
  const rng = mulberry32(5);
  const px = Buffer.from(Array.from({ length: side * side * 3 }, () => rng.uint32() >>> 24));
  await sharp(px, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toFile(file);
  return fs.statSync(file).size;
}

/** Each shard's bytes and the sizes of its samples, in order; checks the rule between them. */
function assertSplit(shards: Array<{ bytes: number; samples: number[] }>, big: number): void {
  assert.ok(shards.length >= 3, JSON.stringify(shards));
  let bigShards = 0;
  shards.forEach((s, i) => {
    if (s.bytes > LIMIT) {
      assert.equal(s.samples.length, 1, `shard ${i} is past the size with ${s.samples.length} samples`);
      assert.ok(s.samples[0]! > big, 'the sample past the size is the big image');
      bigShards++;
    }
    const next = shards[i + 1];
    if (next)
      assert.ok(s.bytes + next.samples[0]! > LIMIT, `shard ${i} (${s.bytes} bytes) was closed with room for the next sample (${next.samples[0]} bytes)`);
  });
  assert.equal(bigShards, 1);
}

test('shards close before the next sample would pass --shard-size; a larger sample is a shard alone', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 40);
  const big = await writeBigImage(path.join(digits.dir, '5', '00000-big.png'));
  assert.ok(big > LIMIT);
  const tf = path.join(dir, 'tf');
  const r1 = runCli(['shards', digits.dir, tf, '--format', 'tfrecord', '--shard-size', '5KB']);
  assert.equal(r1.code, 0, r1.stderr);
  const tfFiles = visibleFiles(tf).filter((f) => f.endsWith('.tfrecord'));
  assertSplit(
    readTfRecords(tfFiles.map((f) => path.join(tf, f))).map((f) => ({ bytes: f.bytes, samples: f.records.map((rec) => 16 + rec.length) })),
    big,
  );
  const wds = path.join(dir, 'wds');
  const r2 = runCli(['shards', digits.dir, wds, '--format', 'webdataset', '--shard-size', '5KB']);
  assert.equal(r2.code, 0, r2.stderr);
  const tars = readTars(
    visibleFiles(wds)
      .filter((f) => f.endsWith('.tar'))
      .map((f) => path.join(wds, f)),
  );
  const member = (size: number) => 512 + Math.ceil(size / 512) * 512;
  const samples = (members: Array<{ size: number }>) => members.flatMap((m, i) => (i % 2 ? [] : [member(m.size) + member(members[i + 1]!.size)]));
  assertSplit(
    tars.map((f) => ({ bytes: f.bytes, samples: samples(f.members) })),
    big,
  );
});
