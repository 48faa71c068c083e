// An image that does not decode gets the hint of what read it: a training run's says to run
// again, and offers no checkpoint itself (a failure at the first step leaves none; after steps
// trained the run adds where its checkpoint is and --resume); the eval command's and predict's
// say what to run again, and not --resume, which they have not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { decodeInto } from '../../src/data/images/decode-image.ts';
import { decodeSpec, type ImageUse } from '../../src/data/images/decode-spec.ts';
import { requireSharp } from '../../src/data/images/sharp-module.ts';
import { MgpuError } from '../../src/shared/errors.ts';
import { digitSource } from '../helpers/digit-images.ts';
import { tempDir } from '../helpers/train-fixture.ts';

async function hintFor(use: ImageUse): Promise<string> {
  const dir = tempDir('images-bad-hint');
  const file = path.join(dir, 'empty.jpg');
  fs.writeFileSync(file, '');
  const spec = decodeSpec(digitSource(dir), false, 1, use);
  try {
    await decodeInto(requireSharp('data.train'), file, spec, 0, 0, new Float32Array(256), new Uint8Array(28 * 28 * 4));
    assert.fail('an empty file decoded');
  } catch (err) {
    assert.ok(err instanceof MgpuError && err.code === 'E_DATA', String(err));
    assert.match(err.message, /empty\.jpg: the file is empty/);
    return err.hint ?? '';
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("training's hint says to run again, and names no checkpoint it may not have", async () => {
  const hint = await hintFor('train');
  assert.match(hint, /then run again/);
  assert.doesNotMatch(hint, /checkpoint|--resume/);
});

test('eval and predict get their own hints, without --resume', async () => {
  const evalHint = await hintFor('eval');
  const predictHint = await hintFor('predict');
  assert.match(evalHint, /run eval again/);
  assert.match(predictHint, /run predict again/);
  for (const h of [evalHint, predictHint]) assert.doesNotMatch(h, /--resume|checkpoint/);
});
