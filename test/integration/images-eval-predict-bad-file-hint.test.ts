// An image that does not decode, met by the eval command or by predict, is E_DATA naming the file
// with that command's own hint (run it again), not training's "--resume continues" (they have no
// checkpoint to resume).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runEval, runPredict } from '../../src/coordinator/inference.ts';
import { train } from '../../src/coordinator/train.ts';
import { MgpuError } from '../../src/shared/errors.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

test('eval and predict name the bad image with their own hints', async () => {
  const dir = tempDir('images-eval-bad-hint');
  const trainSet = await writeDigitFolder(path.join(dir, 'train'), 40);
  const evalDir = path.join(dir, 'eval'); // the training classes, so that eval maps them
  fs.cpSync(trainSet.dir, evalDir, { recursive: true });
  const raw = (evalDir: string) => ({
    name: 'h',
    model: { module: writeDigitModel(dir) },
    loss: 'sparseCategoricalCrossentropy',
    data: {
      train: { type: 'images', dir: trainSet.dir, size: [28, 28], channels: 1 },
      eval: { type: 'images', dir: evalDir, size: [28, 28], channels: 1 },
      threads: 1,
    },
    training: { batchSize: 10, steps: 1, seed: 1 },
    optimizer: { name: 'sgd' },
  });
  const cfg = buildConfig(dir, raw(evalDir), 1);
  await train(cfg, silent);
  const bad = path.join(evalDir, path.relative(trainSet.dir, trainSet.files[3]!));
  fs.writeFileSync(bad, '');
  const model = { dir: path.join(cfg.runDir, 'final'), ema: false };
  const named = (hint: RegExp) => (err: unknown) =>
    err instanceof MgpuError &&
    err.code === 'E_DATA' &&
    err.message.includes(`cannot decode ${bad}: the file is empty`) &&
    hint.test(err.hint ?? '') &&
    !/--resume/.test(err.hint ?? '');
  await assert.rejects(runEval(cfg, silent, model), named(/run eval again/));
  await assert.rejects(runPredict(cfg, silent, model, evalDir, path.join(dir, 'p.csv')), named(/run predict again/));
  assert.ok(!fs.existsSync(path.join(dir, 'p.csv')), 'no output is written');
  fs.rmSync(dir, { recursive: true, force: true });
});
