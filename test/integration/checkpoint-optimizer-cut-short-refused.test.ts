// An optimizer.bin cut short is refused on --resume with E_CHECKPOINT (exit 2) naming the file,
// its size and the size the optimizer's slots need, not an E_INTERNAL stack trace: caught by
// checksums.json, and in a checkpoint older than the checksums by the size check alone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { copyRun, tinyRun, truncate } from '../helpers/run-dir-fixture.ts';

const { runDir, config } = tinyRun('optimizer-cut-short');
let trained: Promise<number> | null = null;
/** The run (adam, every parameter trainable), trained once; the bytes its 2 slots take. */
const train = () =>
  (trained ??= runCliAsync(['train', config]).then((r) => {
    assert.equal(r.code, 0, r.stderr);
    return 2 * fs.statSync(path.join(runDir, 'final', 'weights.bin')).size;
  }));

async function resumeCut(name: string, withChecksums: boolean): Promise<{ ckpt: string; stderr: string }> {
  const copy = copyRun(runDir, name);
  const ckpt = path.join(copy, 'checkpoints', 'step-4');
  truncate(path.join(ckpt, 'optimizer.bin'), 100);
  if (!withChecksums) fs.rmSync(path.join(ckpt, 'checksums.json'));
  const r = await runCliAsync(['train', config, '--run-dir', copy, '--resume', '--set', 'training.steps=6']);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.doesNotMatch(r.stderr, /E_INTERNAL|\n\s+at /);
  assert.doesNotMatch(r.stdout, /resuming from/);
  return { ckpt, stderr: r.stderr };
}

test('a short optimizer.bin against checksums.json', async () => {
  const bytes = await train();
  const { ckpt, stderr } = await resumeCut('with-sums', true);
  assert.match(
    stderr,
    new RegExp(`^error E_CHECKPOINT: ${ckpt} is damaged: optimizer\\.bin is 100 bytes, checksums\\.json records ${bytes} \\(${ckpt}/optimizer\\.bin\\)$`, 'm'),
  );
});

test('a short optimizer.bin in a checkpoint without checksums', async () => {
  const bytes = await train();
  const { ckpt, stderr } = await resumeCut('without-sums', false);
  assert.match(
    stderr,
    new RegExp(
      `^error E_CHECKPOINT: ${ckpt} is damaged: optimizer\\.bin is 100 bytes, adam's 2 slots of ${bytes / 8} trainable parameters need ${bytes} `,
      'm',
    ),
  );
});
