// An image that stops decoding while the run trains (here truncated after step 2, so epoch 1
// meets it) fails the run with an E_DATA error naming the file, exit 1, the steps trained kept
// in a checkpoint; once the file is fixed, --resume ends with the uninterrupted run's bits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-bad-mid-run');

test('a file truncated mid-run: exit 1 naming it, checkpoint kept, resumed to the same bits', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 60);
  const raw = (name: string) => ({
    name,
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'images', dir: digits.dir, size: [28, 28], channels: 1 }, threads: 1, prefetch: 1 },
    training: { batchSize: 20, epochs: 2, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  });
  const full = await train(buildConfig(dir, raw('full'), 2), silent);
  const victim = digits.files[17]!;
  const good = fs.readFileSync(victim);
  const cfg = buildConfig(dir, raw('cut'), 2);
  const breaksAfter2 = {
    ...silent,
    step: (step: number) => {
      if (step === 2) fs.writeFileSync(victim, good.subarray(0, 40));
    },
  };
  await assert.rejects(train(cfg, breaksAfter2), (e: Error & { code?: string; exitCode?: number; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.exitCode, 2);
    assert.match(e.message, new RegExp(`^cannot decode ${victim} \\(40 bytes\\): `));
    assert.match(e.hint ?? '', /the last completed step \(\d\) is in .*checkpoints.*--resume/s);
    return true;
  });
  fs.writeFileSync(victim, good);
  const resumed = await train(cfg, silent, { resume: cfg.runDir });
  assert.equal(resumed.steps, 6);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));
});
