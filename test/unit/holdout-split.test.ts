import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dataset } from '../../src/data/dataset.ts';
import { HOLDOUT_EPOCH, splitHoldout } from '../../src/data/holdout.ts';
import { DataError } from '../../src/shared/errors.ts';
import { epochPermutation } from '../../src/shared/rng.ts';
import { memoryColumn } from '../../src/data/columns.ts';

/** Row i has features [i, i + 0.5, -i] (shape [n, 3]) and label i: a row's values name it. */
function dataset(n: number, labels: 'int32' | 'onehot' = 'int32'): Dataset {
  const features = {
    dtype: 'float32' as const,
    shape: [n, 3],
    data: Float32Array.from({ length: 3 * n }, (_, k) => [Math.floor(k / 3), Math.floor(k / 3) + 0.5, -Math.floor(k / 3)][k % 3]!),
  };
  const lab =
    labels === 'int32'
      ? { dtype: 'int32' as const, shape: [n], data: Int32Array.from({ length: n }, (_, i) => i) }
      : { dtype: 'uint8' as const, shape: [n, 2], data: Uint8Array.from({ length: 2 * n }, (_, k) => (k % 2 === 0 ? Math.floor(k / 2) % 256 : 1)) };
  return { features: memoryColumn(features), labels: memoryColumn(lab), count: n, source: 'test data' };
}

/** The original row indices of a part, read back from its labels, checking its features agree. */
function rows(part: Dataset): number[] {
  const ids = Array.from({ length: part.count }, (_, r) => part.features.toArray().data[3 * r]!);
  for (let r = 0; r < part.count; r++) {
    const i = ids[r]!;
    assert.deepEqual([...part.features.toArray().data.subarray(3 * r, 3 * r + 3)], [i, i + 0.5, -i]);
    if (part.labels.dtype === 'int32') assert.equal(part.labels.toArray().data[r], i);
  }
  return ids;
}

test('sizes: round(fraction * count) held out, the rest trains, shapes and dtypes kept', () => {
  for (const [n, f, k] of [
    [100, 0.2, 20],
    [10, 0.25, 3],
    [10, 0.24, 2],
    [7, 0.5, 4],
    [2, 0.5, 1],
    [3, 0.01 + 1 / 6, 1],
  ] as const) {
    const { train, eval: ev } = splitHoldout(dataset(n), f, 0);
    assert.equal(ev.count, k, `${n} x ${f}`);
    assert.equal(train.count, n - k);
    assert.deepEqual(ev.features.shape, [k, 3]);
    assert.deepEqual(train.features.shape, [n - k, 3]);
    assert.deepEqual(ev.labels.shape, [k]);
    assert.equal(ev.features.toArray().data.length, 3 * k);
    assert.ok(ev.features.toArray().data instanceof Float32Array && ev.labels.toArray().data instanceof Int32Array);
    assert.ok(train.labels.toArray().data instanceof Int32Array);
    assert.match(ev.source, /^test data, \d+ held-out samples \(data\.evalFraction [\d.]+, seed 0\)$/);
  }
});

test('disjoint, the union is everything, both in the original relative order', () => {
  const n = 1000;
  const { train, eval: ev } = splitHoldout(dataset(n), 0.3, 42);
  const t = rows(train);
  const e = rows(ev);
  assert.deepEqual(
    t,
    [...t].sort((a, b) => a - b),
  );
  assert.deepEqual(
    e,
    [...e].sort((a, b) => a - b),
  );
  const all = new Set([...t, ...e]);
  assert.equal(all.size, n);
  assert.deepEqual(
    [...all].sort((a, b) => a - b),
    Array.from({ length: n }, (_, i) => i),
  );
  // the held-out set is the first k of the dedicated permutation
  assert.deepEqual(new Set(e), new Set([...epochPermutation(42, HOLDOUT_EPOCH, n).subarray(0, 300)]));
});

test('multi-column uint8 labels are copied row by row', () => {
  const { train, eval: ev } = splitHoldout(dataset(50, 'onehot'), 0.2, 3);
  for (const part of [train, ev]) {
    assert.equal(part.labels.dtype, 'uint8');
    assert.deepEqual(part.labels.shape, [part.count, 2]);
    rows(part).forEach((i, r) => assert.deepEqual([...part.labels.toArray().data.subarray(2 * r, 2 * r + 2)], [i, 1]));
  }
});

test('deterministic per seed; different seeds differ; the input is untouched', () => {
  const ds = dataset(500);
  const before = Float32Array.from(ds.features.toArray().data);
  const a = rows(splitHoldout(ds, 0.1, 7).eval);
  const b = rows(splitHoldout(ds, 0.1, 7).eval);
  assert.deepEqual(a, b);
  const others = [0, 1, 8, 2 ** 40].map((s) => rows(splitHoldout(ds, 0.1, s).eval).join());
  assert.equal(new Set([a.join(), ...others]).size, 5);
  assert.deepEqual(ds.features.toArray().data, before);
  assert.equal(ds.count, 500);
});

test('too few samples for a held-out set, or for training, is a DataError naming data.evalFraction', () => {
  const check = (n: number, f: number, re: RegExp) =>
    assert.throws(
      () => splitHoldout(dataset(n), f, 0),
      (e: unknown) => {
        assert.ok(e instanceof DataError);
        assert.equal(e.code, 'E_DATA');
        assert.match(e.message, re);
        return true;
      },
    );
  check(10, 0.04, /^data\.evalFraction: 0\.04 of the 10 samples of test data rounds to 0 \(expected at least 1 held-out sample\)$/);
  check(1, 0.5, /^data\.evalFraction: 0\.5 of the 1 samples of test data rounds to 1, leaving no sample for training/);
  check(10, 0.96, /rounds to 10, leaving no sample for training \(expected at least 1 left\)$/);
  check(10, 0, /^data\.evalFraction: 0 is not a fraction in \(0, 1\)/);
  check(10, NaN, /NaN is not a fraction/);
});
