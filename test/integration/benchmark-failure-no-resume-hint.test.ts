// A worker count that fails after some steps (its data module throws in the second epoch) is
// refused with the data's own error, and no hint to resume from the scratch run directory that
// the benchmark removes: there is no run to continue.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { benchFixture, scratchLeft } from '../helpers/benchmark-fixture.ts';
import { writeModelModule } from '../helpers/train-fixture.ts';

const f = benchFixture('benchmark-failure-no-resume');

test('a count that fails mid-run: its error, no --resume of a removed folder', async () => {
  const data = path.join(f.dir, 'data.mjs');
  fs.writeFileSync(
    data,
    "export default { length: 16, get: (i, { epoch }) => { if (epoch >= 1) throw new Error('the disk went away'); return { x: [1, 2, 3, 4, 5, i], y: [1, 0, 0] }; } };\n",
  );
  const config = writeConfigFile(f.dir, 'fails', {
    model: { module: writeModelModule(f.dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: { type: 'module', module: data } },
    training: { batchSize: 4, epochs: 1 },
    optimizer: { name: 'sgd' },
  });
  // 16 rows at a global batch of 3: the second epoch starts at step 6.
  const args = ['benchmark', '--config', config, '--workers', '1', '--batch', '3', '--steps', '10', '--warmup', '1'];
  const r = await runCliAsync([...args, '--simulate', '--backend', 'cpu', '--progress', 'plain'], { cwd: f.dir, env: { ...process.env, TMPDIR: f.tmp } });
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /^error E_DATA: data\.train: module .*data\.mjs: sample \d+: get\(\d+\) threw: the disk went away$/m);
  assert.doesNotMatch(r.stderr, /--resume|checkpoints\/step-|mgpu-benchmark-/, 'a hint to resume a removed scratch run');
  assert.deepEqual(scratchLeft(f.tmp), []);
});
