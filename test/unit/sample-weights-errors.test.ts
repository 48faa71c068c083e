// Sample weights that cannot weigh a loss are refused when the data is loaded, naming the split,
// the file and the sample: a count that differs from the features' (both files, both counts), a
// shape other than [N] or [N, 1], a negative, NaN or infinite weight. Class weights need one class
// per sample (0 or 1 for binary labels), and class indices the model has; held-out samples keep
// their weights.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadDataset } from '../../src/data/dataset.ts';
import { splitHoldout } from '../../src/data/holdout.ts';
import { checkClassWeightsFitModel, withClassWeights } from '../../src/data/sample-weights.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { memoryColumn } from '../../src/data/columns.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-sample-weights-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const features = path.join(dir, 'x.npy');
const labels = path.join(dir, 'y.npy');
writeNpy(features, { dtype: 'float32', shape: [5, 2], data: new Float32Array(10) });
writeNpy(labels, { dtype: 'int32', shape: [5], data: Int32Array.of(0, 1, 2, 1, 0) });
const weightsFile = (name: string, shape: number[], values: number[]) => {
  const file = path.join(dir, name);
  writeNpy(file, { dtype: 'float32', shape, data: Float32Array.from(values) });
  return file;
};
const load = (weights: string) => loadDataset({ type: 'npy', features, labels, weights }, 'data.train');
const rejects = (p: Promise<unknown>, code: string, message: RegExp) =>
  assert.rejects(p, (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, code);
    assert.match(e.message, message);
    assert.ok(e.hint, 'a hint');
    return true;
  });

test('weights of shape [N] or [N, 1] become float32 [N]', async () => {
  for (const shape of [[5], [5, 1]]) {
    const ds = await load(weightsFile(`ok-${shape.length}.npy`, shape, [1, 0, 2.5, 1, 0.5]));
    assert.deepEqual(ds.weights, { dtype: 'float32', shape: [5], data: Float32Array.of(1, 0, 2.5, 1, 0.5) });
  }
});

test('a count that differs names both files and both counts', async () => {
  const file = weightsFile('short.npy', [4], [1, 1, 1, 1]);
  await rejects(load(file), 'E_DATA', new RegExp(`^data\\.train\\.weights: ${file} holds 4 weights but features ${features} hold 5 samples`));
});

test('a shape other than [N] or [N, 1] is refused', async () => {
  await rejects(load(weightsFile('wide.npy', [5, 2], new Array(10).fill(1))), 'E_DATA', /wide\.npy has shape \[5, 2\] \(expected \[N\] or \[N, 1\]/);
});

test('a negative, NaN or infinite weight names its sample', async () => {
  await rejects(load(weightsFile('neg.npy', [5], [1, 1, 1, -0.5, 1])), 'E_DATA', /neg\.npy: the weight of sample 3 is -0\.5 \(expected a finite number >= 0\)/);
  await rejects(load(weightsFile('nan.npy', [5], [NaN, 1, 1, 1, 1])), 'E_DATA', /nan\.npy: the weight of sample 0 is NaN/);
  await rejects(load(weightsFile('inf.npy', [5], [1, 1, Infinity, 1, 1])), 'E_DATA', /inf\.npy: the weight of sample 2 is Infinity/);
});

test('class weights times sample weights; classes not named weigh 1', async () => {
  const ds = await load(weightsFile('two.npy', [5], [1, 2, 3, 4, 0.5]));
  const w = withClassWeights(ds, { 0: 10, 2: 0.5 }, 'sparseCategoricalCrossentropy', 'data.train').weights!.data;
  assert.deepEqual(w, Float32Array.of(10, 2, 1.5, 4, 5));
  const onehot = {
    ...ds,
    labels: memoryColumn({ dtype: 'float32' as const, shape: [5, 3], data: Float32Array.of(0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0) }),
    weights: undefined,
  };
  assert.deepEqual(withClassWeights(onehot, { 0: 7, 1: 3 }, 'categoricalCrossentropy', 'data.train').weights!.data, Float32Array.of(1, 7, 3, 1, 7));
});

test('binary labels need classes 0 and 1 for class weights; the model must have the classes named', async () => {
  const ds = await loadDataset({ type: 'npy', features, labels }, 'data.train');
  const soft = { ...ds, labels: memoryColumn({ dtype: 'float32' as const, shape: [5, 1], data: Float32Array.of(0, 1, 0.7, 1, 0) }) };
  assert.throws(
    () => withClassWeights(soft, { 1: 2 }, 'binaryCrossentropy', 'data.train'),
    /label of sample 2 .* is 0\.7; training\.classWeights needs the class of each sample, 0 or 1/,
  );
  assert.throws(
    () => checkClassWeightsFitModel({ 0: 1, 3: 2 }, 'sparseCategoricalCrossentropy', 3),
    (e: Error & { keyPath?: string }) =>
      e.keyPath === 'training.classWeights.3' && /class 3 is out of range: the model has 3 classes \(0\.\.2\)/.test(e.message),
  );
  assert.throws(() => checkClassWeightsFitModel({ 2: 1 }, 'binaryCrossentropy', 1), /class 2 is out of range: the model has 2 classes \(0\.\.1\)/);
  assert.throws(() => checkClassWeightsFitModel({ 0: 1 }, 'binaryCrossentropy', 4), /4 sigmoid outputs \(multi-label\)/);
  checkClassWeightsFitModel({ 0: 1, 2: 3 }, 'categoricalCrossentropy', 3);
});

test('held-out samples keep their weights', async () => {
  const ds = await load(weightsFile('held.npy', [5], [0.1, 0.2, 0.3, 0.4, 0.5]));
  const { train, eval: held } = splitHoldout(ds, 0.4, 1);
  const all = [...train.weights!.data, ...held.weights!.data].sort();
  assert.deepEqual(all, [0.1, 0.2, 0.3, 0.4, 0.5].map(Math.fround));
  assert.equal(train.weights!.data.length, train.count);
});
