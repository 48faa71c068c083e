import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/shared/errors.ts';
import { loadMnist, MNIST_TOTAL } from '../../src/data/mnist.ts';

// Samples per class in the mnist package, 0..9.
const PER_CLASS = [1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978];

const classOf = (onehot: ArrayLike<number>, i: number) => Array.from({ length: 10 }, (_, c) => onehot[i * 10 + c]!).indexOf(1);

test('mnist holds 10,000 digits: float32 [n, 784] in [0, 1] and one-hot float32 [n, 10]', () => {
  assert.equal(MNIST_TOTAL, 10_000);
  const { features, labels } = loadMnist(0, MNIST_TOTAL, 'onehot', 'data.train');
  assert.equal(features.dtype, 'float32');
  assert.deepEqual(features.shape, [10_000, 784]);
  assert.equal(features.data.length, 10_000 * 784);
  assert.ok(features.data.every((v) => v >= 0 && v <= 1));
  assert.equal(labels.dtype, 'float32');
  assert.deepEqual(labels.shape, [10_000, 10]);

  const perClass = new Array<number>(10).fill(0);
  for (let i = 0; i < 10_000; i++) {
    let sum = 0;
    for (let c = 0; c < 10; c++) sum += labels.data[i * 10 + c]!;
    assert.equal(sum, 1, `row ${i} sums to 1`);
    perClass[classOf(labels.data, i)]!++;
  }
  assert.deepEqual(perClass, PER_CLASS);
});

test('mnist index labels are int32 [n] and agree with the one-hot ones', () => {
  const onehot = loadMnist(100, 500, 'onehot', 'data.train').labels;
  const index = loadMnist(100, 500, 'index', 'data.train').labels;
  assert.equal(index.dtype, 'int32');
  assert.deepEqual(index.shape, [500]);
  for (let i = 0; i < 500; i++) assert.equal(index.data[i], classOf(onehot.data, i));
});

test('mnist ranges are slices of one fixed order: adjacent ranges are disjoint and tile the whole', () => {
  const all = loadMnist(0, MNIST_TOTAL, 'index', 'data.train');
  const train = loadMnist(0, 8000, 'index', 'data.train');
  const evalSplit = loadMnist(8000, 2000, 'index', 'data.eval');
  assert.deepEqual(train.features.data, all.features.data.subarray(0, 8000 * 784));
  assert.deepEqual(evalSplit.features.data, all.features.data.subarray(8000 * 784));
  assert.deepEqual(evalSplit.labels.data, all.labels.data.subarray(8000));

  const key = (a: Float32Array, i: number) => Buffer.from(a.buffer, a.byteOffset + i * 784 * 4, 784 * 4).toString('base64');
  const seen = new Set<string>();
  for (let i = 0; i < 8000; i++) seen.add(key(train.features.data as Float32Array, i));
  for (let i = 0; i < 2000; i++) assert.ok(!seen.has(key(evalSplit.features.data as Float32Array, i)), `eval row ${i} is also in train`);
});

test('mnist order is class-mixed and pinned', () => {
  const { features, labels } = loadMnist(0, 1000, 'index', 'data.train');
  const perClass = new Array<number>(10).fill(0);
  for (const c of labels.data) perClass[c]!++;
  for (const n of perClass) assert.ok(n >= 70 && n <= 130, `first 1000 per class: ${perClass}`);

  // Pinned: a change moves samples between users' train and eval ranges.
  assert.deepEqual(Array.from(labels.data.subarray(0, 10)), [4, 1, 8, 5, 4, 2, 3, 5, 5, 8]);
  assert.equal(loadMnist(9999, 1, 'index', 'data.train').labels.data[0], 2);
  let ink = 0;
  for (let k = 0; k < 784; k++) ink += features.data[k]!;
  assert.ok(Math.abs(ink - 81.44) < 1e-3, `pixel sum of sample 0 is ${ink}`);
});

test('mnist ranges outside the 10,000 are config errors naming the key', () => {
  assert.throws(
    () => loadMnist(9000, 2000, 'onehot', 'data.eval'),
    (e: unknown) => e instanceof ConfigError && e.code === 'E_CONFIG' && /^data\.eval\.count: must be an integer in \[1, 1000\]/.test(e.message),
  );
  assert.throws(
    () => loadMnist(-1, 10, 'onehot', 'data.train'),
    (e: unknown) => e instanceof ConfigError && e.keyPath === 'data.train.offset',
  );
  assert.throws(
    () => loadMnist(0, 0, 'onehot', 'data.train'),
    (e: unknown) => e instanceof ConfigError && e.keyPath === 'data.train.count',
  );
});
