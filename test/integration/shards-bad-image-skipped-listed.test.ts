// Without --strict, images that cannot be read or decoded (one truncated, one a text file named
// .jpg) are left out, as dataset writers do: the others are written (shards Python reads back,
// every record one of the good images), each one left out is named with why at the end of the
// output, and shards.json lists them under `skipped`; the keys run on without gaps.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { readTars } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('two bad images of 31: left out, listed at the end and in shards.json; 29 written', async () => {
  const dir = tempDir('shards-bad-skipped');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 30);
  const truncated = digits.files[20]!;
  const whole = fs.readFileSync(truncated);
  fs.writeFileSync(truncated, whole.subarray(0, whole.length - 20));
  const text = path.join(path.dirname(digits.files[3]!), 'zz-not-an-image.jpg');
  fs.writeFileSync(text, 'not a picture at all\n');
  const out = path.join(dir, 'out');
  const r = runCli(['shards', digits.dir, out, '--format', 'webdataset', '--shard-samples', '10']);
  assert.equal(r.code, 0, r.stderr);
  const rel = (f: string) => path.relative(digits.dir, f);
  const tail = r.stdout.trim().split('\n').slice(-4);
  assert.equal(tail[0], "left out 2 images that cannot be read (listed in shards.json's skipped):");
  assert.deepEqual(
    tail
      .slice(1, 3)
      .map((l) => l.split(':')[0]!.trim())
      .sort(),
    [rel(truncated), rel(text)].sort(),
  );
  assert.match(tail[3]!, /^wrote 3 webdataset shards of 29 images \(2 left out: they cannot be read, listed above\) in \d+ classes to /);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, 'shards.json'), 'utf8')) as { samples: number; skipped: Array<{ file: string; why: string }> };
  assert.equal(manifest.samples, 29);
  assert.deepEqual(manifest.skipped.map((s) => s.file).sort(), [rel(truncated), rel(text)].sort());
  assert.ok(
    manifest.skipped.every((s) => s.why.startsWith(`cannot decode ${path.join(digits.dir, s.file)}`)),
    JSON.stringify(manifest.skipped),
  );
  const tars = readTars(
    fs
      .readdirSync(out)
      .filter((f) => f.endsWith('.tar'))
      .sort()
      .map((f) => path.join(out, f)),
  );
  const keys = tars.flatMap((t) => t.members.map((m) => m.name.split('.')[0]!));
  assert.deepEqual(
    [...new Set(keys)],
    Array.from({ length: 29 }, (_, k) => String(k).padStart(6, '0')),
    'the keys run on without gaps',
  );
});
