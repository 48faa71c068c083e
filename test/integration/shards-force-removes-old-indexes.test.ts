// --force replaces the shards in the out dir and the record indexes beside them
// (`<shard>.mgpu-index`, as a training run leaves them): none is left to describe a shard that is
// gone or rewritten. Without --force, an out dir holding only such indexes is refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test("--force removes the old shards' indexes", async () => {
  const dir = tempDir('shards-force-indexes');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 20);
  const out = path.join(dir, 'out');
  const args = ['shards', digits.dir, out, '--format', 'tfrecord'];
  assert.equal(runCli([...args, '--shard-samples', '5']).code, 0);
  const old = fs.readdirSync(out).filter((f) => f.endsWith('.tfrecord'));
  for (const f of old) shardIndex(path.join(out, f), { image: 'image/encoded', label: 'image/class/label' });
  assert.equal(fs.readdirSync(out).filter((f) => f.endsWith('.mgpu-index')).length, old.length);

  const forced = runCli([...args, '--shard-samples', '100', '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.deepEqual(fs.readdirSync(out).sort(), ['shards.json', 'train-00000-of-00001.tfrecord']);

  const onlyIndex = path.join(dir, 'only-index');
  fs.mkdirSync(onlyIndex);
  fs.writeFileSync(path.join(onlyIndex, 'train-00000-of-00002.tfrecord.mgpu-index'), 'x');
  const refused = runCli(['shards', digits.dir, onlyIndex, '--format', 'tfrecord']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /already holds shards \(train-00000-of-00002\.tfrecord\.mgpu-index\)/);
});
