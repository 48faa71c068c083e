// predictions.csv's score column: each float32 as the shortest decimal (at most 9 significant
// digits) that reads back as the same float32, never the 17 digits of its float64 widening.
// The expected texts are written out by hand, not computed by the code under test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { predictionsCsv } from '../../src/coordinator/inference.ts';

const scoreOf = (v: number): string =>
  predictionsCsv(['a'], new Float32Array([v]))
    .split('\n')[1]!
    .slice('a,'.length);

test('each score is the shortest text that reads back as the same float32', () => {
  const cases: [number, string][] = [
    [0.1, '0.1'], // float32 0.100000001490116...
    [1 / 3, '0.33333334'],
    [16777217, '16777216'], // 2^24 + 1 is not a float32: it rounds to 2^24
    [0.10111184418201447, '0.101111844'], // a float32 that needs all 9 digits
    [0.010843324474990368, '0.0108433245'],
    [1, '1'],
    [0.5, '0.5'],
    [1e-45, '1e-45'], // the smallest denormal, 1.401298e-45
    [1.1754942e-38, '1.1754942e-38'], // the largest denormal
    [3.4028234663852886e38, '3.4028235e+38'], // the largest float32
    [-2.5, '-2.5'],
  ];
  for (const [v, text] of cases) {
    const got = scoreOf(v);
    assert.equal(got, text, `${v}`);
    assert.equal(Math.fround(Number(got)), Math.fround(v), `${got} reads back as another float32`);
  }
});

test('-0, NaN and the infinities are printed as before: 0, NaN, Infinity, -Infinity', () => {
  assert.equal(scoreOf(-0), '0');
  assert.equal(scoreOf(NaN), 'NaN');
  assert.equal(scoreOf(Infinity), 'Infinity');
  assert.equal(scoreOf(-Infinity), '-Infinity');
});
