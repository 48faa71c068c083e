// The scaling benchmarks' --workers list: the counts given, sorted and once each, from 1 up to
// --max-workers; without a list every count. A GPU or many-core session runs a few chosen
// counts (1,2,4,8,15) to fit its time, so a list that silently ran other counts would waste it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerCounts } from '../../scripts/bench/worker-counts.ts';

test('--workers: the listed counts sorted and once each; without it every count; bad ones refused', () => {
  assert.deepEqual(workerCounts(undefined, 4), [1, 2, 3, 4]);
  assert.deepEqual(workerCounts(undefined, 4, 2), [2, 3, 4]);
  assert.deepEqual(workerCounts('8, 1,4,2,4', 15), [1, 2, 4, 8]);
  assert.deepEqual(workerCounts('1,2,4', 16, 2), [2, 4]);
  assert.throws(() => workerCounts('1,2,16', 15), /'16' is not a whole number from 1 to --max-workers \(15\)/);
  assert.throws(() => workerCounts('0', 4), /'0' is not/);
  assert.throws(() => workerCounts('2.5', 4), /'2.5' is not/);
  assert.throws(() => workerCounts('two', 4), /'two' is not/);
});
