// One byte changed in a checkpoint's weights.bin keeps its size, so only the CRC-32C in
// checksums.json can tell: eval refuses it (E_CHECKPOINT, exit 2) naming the file and both
// checksums, and prints no figures computed from the damaged weights.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { tinyRun } from '../helpers/run-dir-fixture.ts';

test('a flipped byte of the same size is caught by the CRC', async () => {
  const { runDir, config } = tinyRun('flipped-byte');
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  const ckpt = path.join(runDir, 'checkpoints', 'step-4');
  const file = path.join(ckpt, 'weights.bin');
  const b = fs.readFileSync(file);
  b[Math.floor(b.length / 2)]! ^= 0x01;
  fs.writeFileSync(file, b);
  const r = await runCliAsync(['eval', config, '--checkpoint', runDir]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `^error E_CHECKPOINT: ${ckpt} is damaged: weights\\.bin has CRC-32C [0-9a-f]{8}, checksums\\.json records [0-9a-f]{8}: its contents changed after it was written`,
      'm',
    ),
  );
  assert.doesNotMatch(r.stdout, /loss/);
});
