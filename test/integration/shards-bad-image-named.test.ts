// With --strict, an image that cannot be decoded (truncated after a header that reads, so only
// decoding it in full finds it; or not an image at all under an image's name, found from its
// header) is E_DATA (exit 2) naming the file and what is wrong with it, and the out dir is left
// without any shard: the shards closed before it was met are not left behind, whole-looking or
// not. (Without --strict such images are left out and listed: shards-bad-image-skipped-listed.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('shards-bad-image');

test('a truncated image and a text file named .jpg are each named, and no shard is left', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 30);
  const victim = digits.files[20]!;
  const whole = fs.readFileSync(victim);
  fs.writeFileSync(victim, whole.subarray(0, whole.length - 20)); // truncated: its header still reads
  const out = path.join(dir, 'out');
  const r = runCli(['shards', digits.dir, out, '--format', 'tfrecord', '--shard-samples', '5', '--strict']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^error E_DATA: cannot decode ${victim} \\(${whole.length - 20} bytes\\): `, 'm'));
  assert.match(r.stderr, /hint: replace or remove the file.*\(or leave out --strict: such images are left out and listed\)/);
  assert.deepEqual(fs.readdirSync(out), []);

  const texts = path.join(dir, 'texts');
  fs.mkdirSync(path.join(texts, 'cat'), { recursive: true });
  fs.copyFileSync(digits.files[0]!, path.join(texts, 'cat', 'a.png'));
  fs.writeFileSync(path.join(texts, 'cat', 'b.jpg'), 'not a picture at all\n');
  const r2 = runCli(['shards', texts, path.join(dir, 'out2'), '--format', 'webdataset', '--check', 'header', '--strict']);
  assert.equal(r2.code, 2, r2.stderr);
  assert.match(r2.stderr, new RegExp(`^error E_DATA: cannot decode ${path.join(texts, 'cat', 'b.jpg')} \\(21 bytes\\): not an image`, 'm'));
  assert.deepEqual(fs.readdirSync(path.join(dir, 'out2')), []);
});
