// A data error met after steps have trained ends the run the same way whatever found it: a
// mapped .npy row with a NaN (found as its batch is staged) and an image that does not decode
// (found by the decoding thread) both exit 2 (an input error, whenever it is met), E_DATA, with the steps trained kept in a
// checkpoint that the hint names. Each bad sample sits in step 2's batch (steps 0 and 1 train).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { epochPermutation } from '../../src/shared/rng.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule, FEATURES } from '../helpers/train-fixture.ts';

const dir = tempDir('data-error-mid-run');
const BATCH = 8;
const SEED = 3;
/** The first sample of step 2's batch (epoch 0 visits the samples in the seeded permutation's order). */
const inStep2 = (count: number) => epochPermutation(SEED, 0, count)[2 * BATCH]!;
const training = { batchSize: BATCH, epochs: 1, seed: SEED };

interface Failed {
  code: string;
  exitCode: number;
  message: string;
  checkpoint: string;
  step: number;
}

/** How `train(raw)` failed: its code, exit code and message, and the checkpoint its hint names. */
async function failure(raw: Record<string, unknown>): Promise<Failed> {
  const err = (await train(buildConfig(dir, raw, 2), silent).then(
    () => assert.fail('the run should fail'),
    (e: unknown) => e,
  )) as Error & { code: string; exitCode: number; hint?: string };
  const kept = /the last completed step \((\d+)\) is in (\S+);/.exec(err.hint ?? '');
  assert.ok(kept, `no checkpoint in the hint: ${err.hint}`);
  return { code: err.code, exitCode: err.exitCode, message: err.message, step: Number(kept[1]), checkpoint: kept[2]! };
}

test('a NaN row of a mapped .npy and a bad image, both met at step 2: the same exit code, both keep their steps', async () => {
  const count = 48;
  const data = writeDataset(dir, 'nan', count, 'onehot', 5);
  const x = readNpy(data.features);
  const nanAt = inStep2(count);
  (x.data as Float32Array)[nanAt * FEATURES + 1] = NaN;
  writeNpy(data.features, x);
  const mapped = await failure({
    name: 'nan',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training,
    optimizer: { name: 'sgd' },
  });
  assert.match(mapped.message, new RegExp(`^data\\.train: feature 1 of sample ${nanAt} in .*nan-x\\.npy is NaN$`));

  const digits = await writeDigitFolder(path.join(dir, 'digits'), 40);
  const victim = digits.files[inStep2(digits.count)]!;
  fs.writeFileSync(victim, fs.readFileSync(victim).subarray(0, 40));
  const image = await failure({
    name: 'image',
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'images', dir: digits.dir, size: [28, 28], channels: 1 }, threads: 1, prefetch: 1 },
    training,
    optimizer: { name: 'sgd' },
  });
  assert.match(image.message, new RegExp(`^cannot decode ${victim} \\(40 bytes\\): `));

  for (const f of [mapped, image]) {
    assert.equal(f.code, 'E_DATA');
    assert.ok(f.step >= 1 && f.step <= 2, `checkpointed step ${f.step}: steps before step 2 trained`);
    assert.ok(fs.existsSync(path.join(f.checkpoint, 'weights.bin')), `${f.checkpoint} holds no weights`);
  }
  assert.equal(mapped.exitCode, image.exitCode, 'the same kind of event, the same exit code');
  assert.equal(mapped.exitCode, 2, 'a data error is an input error: exit 2, also while the run trains');
});
