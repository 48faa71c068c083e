// ROC AUC over gathered scores, ties included, equals the definition computed here by brute
// force over every (positive, negative) pair (a tie counts one half), binary and one-vs-rest
// macro; plus scikit-learn's documented example.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { macroAuc, rocAuc } from '../../src/coordinator/metrics/auc.ts';
import { mulberry32 } from '../../src/shared/rng.ts';

function pairs(scores: number[], positive: boolean[]): number | null {
  let wins = 0;
  let n = 0;
  scores.forEach((sp, i) => {
    if (!positive[i]) return;
    scores.forEach((sn, j) => {
      if (positive[j]) return;
      n++;
      wins += sp > sn ? 1 : sp === sn ? 0.5 : 0;
    });
  });
  return n === 0 ? null : wins / n;
}

const close = (got: number | null, want: number | null, what: string) =>
  assert.ok(want === null ? got === null : got !== null && Math.abs(got - want) < 1e-12, `${what}: ${got} vs ${want}`);

test("scikit-learn's example: y [0, 0, 1, 1], scores [0.1, 0.4, 0.35, 0.8] -> 0.75", () => {
  close(rocAuc([0.1, 0.4, 0.35, 0.8], [false, false, true, true]), 0.75, 'auc');
});

test('all scores tied: 0.5; one class only: undefined; a NaN score: NaN', () => {
  close(rocAuc([0.5, 0.5, 0.5, 0.5], [false, true, false, true]), 0.5, 'all tied');
  assert.equal(rocAuc([0.1, 0.2], [true, true]), null);
  assert.equal(rocAuc([0.1, 0.2], [false, false]), null);
  assert.ok(Number.isNaN(rocAuc([0.1, NaN, 0.3], [true, false, true])));
});

for (const seed of [11, 12, 13, 14, 15]) {
  test(`seed ${seed}: binary, 37 rows with scores on 5 levels (many ties), equals the pair count`, () => {
    const rng = mulberry32(seed);
    const positive = Array.from({ length: 37 }, () => rng.float() < 0.4);
    // Scores correlated with the label, quantized so that most rows tie with others.
    const scores = positive.map((p) => Math.fround(Math.min(4, Math.floor(rng.float() * 4 + (p ? 1.2 : 0))) / 4));
    assert.ok(new Set(scores).size <= 5);
    close(rocAuc(Float32Array.from(scores), positive), pairs(scores, positive), 'auc');
  });
}

test('one-vs-rest macro over 4 classes with ties; a class with no rows is left out', () => {
  const rng = mulberry32(99);
  const m = 37;
  const width = 4;
  const labels = Float32Array.from({ length: m }, () => rng.below(3)); // class 3 never occurs
  const scores = new Float32Array(m * width);
  for (let i = 0; i < m; i++) for (let c = 0; c < width; c++) scores[i * width + c] = Math.round(rng.float() * 3 + (labels[i] === c ? 1 : 0)) / 4;
  const per = [0, 1, 2].map((c) =>
    pairs(
      Array.from({ length: m }, (_, i) => scores[i * width + c]!),
      Array.from(labels, (y) => y === c),
    )!,
  );
  close(macroAuc(scores, labels, width, 'classes'), (per[0]! + per[1]! + per[2]!) / 3, 'macro ovr');
});

test('binary outputs: the mean of each output against its own labels', () => {
  const scores = Float32Array.from([0.9, 0.2, 0.1, 0.8, 0.5, 0.5, 0.3, 0.1]); // 4 rows x 2 outputs
  const labels = Float32Array.from([1, 0, 0, 1, 1, 1, 0, 0]);
  const a = pairs([0.9, 0.1, 0.5, 0.3], [true, false, true, false])!;
  const b = pairs([0.2, 0.8, 0.5, 0.1], [false, true, true, false])!;
  close(macroAuc(scores, labels, 2, 'outputs'), (a + b) / 2, 'macro over outputs');
});
