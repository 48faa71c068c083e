// The benchmark's statistics on inputs worked out by hand: the median of an even count is the
// mean of the two middle values, rates are ordered as numbers (not as text, where "100" < "9"),
// and the scaling efficiency is the speedup over 1 worker divided by the workers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mean, median, rateFigures } from '../../src/benchmark/stats.ts';
import { withScaling, type PlainReport } from '../../src/benchmark/report.ts';
import type { CountFigures } from '../../src/benchmark/measure.ts';

test('median: the middle value of an odd count, the mean of the two middle ones of an even count, as numbers', () => {
  assert.equal(median([10, 9, 100]), 10); // as text: "10" < "100" < "9", the middle would be 100
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([30, 10, 20, 1000]), 25);
  assert.equal(median([7]), 7);
  assert.ok(Number.isNaN(median([])));
  const xs = [3, 1, 2];
  median(xs);
  assert.deepEqual(xs, [3, 1, 2], 'the input is left in its order');
});

test('jitter: 1.4826 x the median absolute deviation, here 1.5', () => {
  // [1, 2, 4, 8]: median 3; |x - 3| = 2, 1, 1, 5: median 1.5
  assert.ok(Math.abs(rateFigures([1, 2, 4, 8]).jitter - 1.4826 * 1.5) < 1e-12);
});

test('mean, min, max and jitter of [10, 9, 100], ordered as numbers', () => {
  assert.equal(mean([10, 9, 100]), 119 / 3);
  const f = rateFigures([10, 9, 100]);
  assert.deepEqual([f.min, f.median, f.max], [9, 10, 100]);
  // |x - 10| = 0, 1, 90: median 1
  assert.equal(f.jitter, 1.4826);
  // population sd: deviations from 119/3 are -9.67, -30.67, 60.33
  const m = 119 / 3;
  const sd = Math.sqrt(((10 - m) ** 2 + (9 - m) ** 2 + (100 - m) ** 2) / 3);
  assert.ok(Math.abs(f.stderr - sd / Math.sqrt(3)) < 1e-12, String(f.stderr));
});

const count = (workers: number, imagesPerSec: number) => ({ workers, imagesPerSec }) as unknown as CountFigures;
const plainAt = (imagesPerSec: number) => ({ imagesPerSec, skipped: null }) as unknown as PlainReport;

test('scaling efficiency = speedup over 1 worker / workers; vs plain = images/s / (workers x plain)', () => {
  // Listed out of order: the 1-worker count is found by its workers, not its place.
  const r = withScaling([count(4, 200), count(1, 100), count(2, 150)], plainAt(80));
  assert.deepEqual(
    r.map((c) => [c.workers, c.efficiency, c.vsPlain]),
    [
      [4, 0.5, 0.625], // 200 / 100 = 2x on 4 workers; 200 / (4 x 80)
      [1, 1, 1.25],
      [2, 0.75, 0.9375], // 150 / 100 = 1.5x on 2 workers; 150 / 160
    ],
  );
});

test('without a 1-worker count no efficiency; without the baseline no vs plain', () => {
  const r = withScaling([count(2, 150), count(4, 200)], { imagesPerSec: null, skipped: 'interrupted by SIGINT' });
  assert.deepEqual(
    r.map((c) => [c.workers, c.efficiency, c.vsPlain]),
    [
      [2, null, null],
      [4, null, null],
    ],
  );
});
