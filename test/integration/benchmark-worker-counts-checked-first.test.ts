// Worker counts that cannot run are refused before anything is measured (not after the baseline
// and the counts before them): more simulated GPUs than the machine holds, a count whose global
// batch the data cannot fill.
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { benchFixture, scratchLeft } from '../helpers/benchmark-fixture.ts';

const f = benchFixture('benchmark-worker-counts-first');
const tooMany = 4 * os.availableParallelism() + 1;

const refusedFirst = async (extra: string[], message: RegExp) => {
  const args = ['benchmark', '--config', f.config, '--batch', '3', '--steps', '2', '--warmup', '1', '--simulate', '--backend', 'cpu', '--progress', 'plain'];
  const r = await runCliAsync([...args, ...extra], { cwd: f.dir, env: { ...process.env, TMPDIR: f.tmp } });
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stdout, /plain tfjs, 1 process|mgpu-train, \d+ workers? \(global batch/, 'something was measured first');
  assert.deepEqual(scratchLeft(f.tmp), []);
};

test('more simulated workers than the machine holds: refused before the baseline, naming --workers', async () => {
  await refusedFirst(['--workers', `1,${tooMany}`], new RegExp(`^error E_DEVICES: --workers ${tooMany}: `, 'm'));
});

test('a global batch larger than the data: refused before the baseline', async () => {
  // 16 rows; 6 workers x 3 = 18
  await refusedFirst(
    ['--workers', '1,6', '--oversubscribe'],
    /^error E_DATA: --workers 6: a global batch of 18 \(3 x 6 workers\) is more than the 16 samples of data\.train/m,
  );
});
