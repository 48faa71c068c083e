// The images folder itself, a folder inside it (made or not yet), or one inside it by a link, is
// refused as the out dir (E_USAGE, exit 2, nothing written): the shards would be read as a class
// folder of images by the next run over that folder. A folder beside it is taken.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('the images folder, a folder in it or a link into it: refused as the out dir', async () => {
  const dir = tempDir('shards-out-in-source');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 10);
  const tree = () => fs.readdirSync(digits.dir, { recursive: true }).map(String).sort();
  const before = tree();
  const link = path.join(dir, 'link');
  fs.symlinkSync(digits.dir, link);
  for (const [out, what] of [
    [digits.dir, 'is the images folder'],
    [path.join(digits.dir, 'shards'), `is inside the images folder ${digits.dir}`],
    [path.join(digits.dir, '3', 'x'), `is inside the images folder ${digits.dir}`],
    [path.join(link, 'shards'), `is inside the images folder ${digits.dir}`],
  ] as const) {
    const r = runCli(['shards', digits.dir, out, '--format', 'webdataset']);
    assert.equal(r.code, 2, r.stderr);
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(
      r.stderr.split('\n')[0]!,
      new RegExp(`^error E_USAGE: shards: the out dir ${esc(out)} ${esc(what)}: its shards would be read as a class folder`),
    );
    assert.deepEqual(tree(), before, 'nothing written');
  }
  const beside = runCli(['shards', digits.dir, path.join(dir, 'digits-shards'), '--format', 'webdataset']);
  assert.equal(beside.code, 0, beside.stderr);
});
