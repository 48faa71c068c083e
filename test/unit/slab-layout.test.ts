import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flatten, layoutHash, PAGE, slabLayout, type VariableSpec } from '../../src/shared/layout.ts';

const vars: VariableSpec[] = [
  { name: 'd/kernel', shape: [784, 10], dtype: 'float32', trainable: true },
  { name: 'd/bias', shape: [10], dtype: 'float32', trainable: true },
  { name: 'bn/moving_mean', shape: [10], dtype: 'float32', trainable: false },
];

test('the flat layout puts trainables first and counts both parts', () => {
  const flat = flatten(vars);
  assert.deepEqual(flat.offsets, [0, 7840, 7850]);
  assert.equal(flat.trainable, 7850);
  assert.equal(flat.total, 7860);
});

test('every region is page-aligned, disjoint and inside the slab', () => {
  const flat = flatten(vars);
  const l = slabLayout(flat, 3, 5000, 300, 7);
  const regions: Array<[number, number]> = [
    [l.header, 64],
    [l.weights, flat.total * 4],
    ...l.grads.map((o): [number, number] => [o, flat.trainable * 4]),
    ...l.state.map((o): [number, number] => [o, (flat.total - flat.trainable) * 4]),
    ...l.output.map((o): [number, number] => [o, 300]),
    ...l.input.flat().map((o): [number, number] => [o, 5000]),
  ];
  assert.equal(regions.length, 2 + 3 + 3 + 3 + 6);
  for (const [start] of regions) assert.equal(start % PAGE, 0);
  const sorted = [...regions].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i - 1]![0] + sorted[i - 1]![1] <= sorted[i]![0], 'regions overlap');
  const last = sorted[sorted.length - 1];
  assert.ok(last![0] + last![1] <= l.size);
  assert.equal(l.size % PAGE, 0);
});

test('the layout hash changes with a name, a shape or trainability', () => {
  const h = layoutHash(vars);
  assert.equal(layoutHash(structuredClone(vars)), h);
  const renamed = structuredClone(vars);
  renamed[0]!.name = 'x';
  const reshaped = structuredClone(vars);
  reshaped[0]!.shape = [10, 784];
  const frozen = structuredClone(vars);
  frozen[1]!.trainable = false;
  for (const other of [renamed, reshaped, frozen]) assert.notEqual(layoutHash(other), h);
});
