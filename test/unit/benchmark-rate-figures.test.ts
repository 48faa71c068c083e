// The benchmark's rate figures, as tf_cnn_benchmarks computes them (benchmark_cnn.py's
// get_perf_timing): the mean, its uncertainty np.std(speeds) / sqrt(n) (the population
// standard deviation), and the jitter 1.4826 x the median absolute deviation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateFigures } from '../../src/benchmark/stats.ts';

test('mean, +/- and jitter of [10, 12, 11, 30]', () => {
  const f = rateFigures([10, 12, 11, 30]);
  assert.equal(f.mean, 15.75);
  // np.std([10, 12, 11, 30]) = sqrt((5.75^2 + 3.75^2 + 4.75^2 + 14.25^2) / 4) = sqrt(68.1875); over sqrt(4)
  assert.ok(Math.abs(f.stderr - Math.sqrt(68.1875) / 2) < 1e-12, String(f.stderr));
  // median 11.5; |x - 11.5| = 1.5, 0.5, 0.5, 18.5: median 1.0
  assert.equal(f.median, 11.5);
  assert.ok(Math.abs(f.jitter - 1.4826) < 1e-12, String(f.jitter));
  assert.deepEqual([f.min, f.max], [10, 30]);
});
