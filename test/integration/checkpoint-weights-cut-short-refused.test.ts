// A weights.bin cut short or emptied is refused by every reader, naming the file and its size
// against the expected one, with exit 2 and before any output is written: eval of a checkpoint,
// predict from a model directory without checksums.json (as plain tfjs saves one: the size
// check against model.json's weightsManifest), and --resume, which names the previous
// complete checkpoint. (Read as it was, the model had zero weights: loss ln 3, exit 0.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { copyRun, tinyRun, truncate } from '../helpers/run-dir-fixture.ts';

const { dir, runDir, config } = tinyRun('weights-cut-short');
let trained: Promise<number> | null = null;
/** The run, trained once; the size of its weights.bin. */
const train = () =>
  (trained ??= runCliAsync(['train', config]).then((r) => {
    assert.equal(r.code, 0, r.stderr);
    return fs.statSync(path.join(runDir, 'final', 'weights.bin')).size;
  }));
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at |E_INTERNAL/);

test('eval of a checkpoint whose weights.bin is 100 bytes', async () => {
  const size = await train();
  const ckpt = path.join(copyRun(runDir, 'eval-copy'), 'checkpoints', 'step-4');
  truncate(path.join(ckpt, 'weights.bin'), 100);
  const r = await runCliAsync(['eval', config, '--checkpoint', ckpt]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`^error E_CHECKPOINT: ${ckpt} is damaged: weights\\.bin is 100 bytes, checksums\\.json records ${size} \\(${ckpt}/weights\\.bin\\)$`, 'm'),
  );
  assert.doesNotMatch(r.stdout, /loss/);
  noStack(r.stderr);
});

test('predict from a plain model directory whose weights.bin is empty', async () => {
  const size = await train();
  const model = path.join(copyRun(runDir, 'predict-copy'), 'final');
  fs.rmSync(path.join(model, 'checksums.json'));
  fs.writeFileSync(path.join(model, 'weights.bin'), '');
  const x = path.join(dir, 'x.npy');
  writeNpy(x, { dtype: 'float32', shape: [2, 6], data: new Float32Array(12) });
  const output = path.join(dir, 'y.npy');
  const r = await runCliAsync(['predict', config, '--checkpoint', model, '--input', x, '--output', output]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`^error E_CHECKPOINT: ${model} is damaged: weights\\.bin is 0 bytes, model\\.json's weightsManifest declares ${size} `, 'm'),
  );
  assert.ok(!fs.existsSync(output), 'predictions were written');
  noStack(r.stderr);
});

test('--resume from a checkpoint whose weights.bin is 100 bytes names the previous complete one', async () => {
  const size = await train();
  const copy = copyRun(runDir, 'resume-copy');
  const ckpt = path.join(copy, 'checkpoints', 'step-4');
  truncate(path.join(ckpt, 'weights.bin'), 100);
  const r = await runCliAsync(['train', config, '--run-dir', copy, '--resume', '--set', 'training.steps=6']);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `^error E_CHECKPOINT: ${ckpt} is damaged: weights\\.bin is 100 bytes, checksums\\.json records ${size} .*\\n` +
        `  hint: the previous complete checkpoint is ${copy}/checkpoints/step-2: continue from it with --resume ${copy}/checkpoints/step-2$`,
      'm',
    ),
  );
  assert.doesNotMatch(r.stdout, /resuming from/);
  noStack(r.stderr);
});
