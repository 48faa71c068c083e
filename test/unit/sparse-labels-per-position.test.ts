// Sparse labels of an output with positions ([n, 5, 3]: 5 time steps of 3 classes) hold one class
// index per position: rows of [5] or [5, 1] are taken and staged as [5]; rows of another count,
// and an index that is not one of the 3 classes, are refused naming the file, the shapes and
// the sample. A [n, 3] output still takes one index per sample, staged as a scalar.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dataset } from '../../src/data/rows.ts';
import { rowFormat } from '../../src/coordinator/engine/row-format.ts';
import type { ModelLayout } from '../../src/shared/layout.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { memoryColumn } from '../../src/data/columns.ts';

const N = 4;

function layout(output: (number | null)[]): ModelLayout {
  const input = [null, 5, 2];
  return {
    variables: [],
    saveOrder: [],
    inputShape: input,
    outputShape: output,
    inputs: [{ name: 'x', shape: input }],
    outputs: [{ name: 'y', shape: output }],
    topology: null,
  };
}

function targetShape(labels: NdArray, output: (number | null)[]): number[] {
  const ds: Dataset = {
    features: memoryColumn({ dtype: 'float32', shape: [N, 5, 2], data: new Float32Array(N * 10) }),
    labels: memoryColumn(labels),
    count: N,
    source: 'labels.npy',
  };
  const rows = rowFormat(ds, layout(output), [{ port: { name: 'y', shape: output }, loss: 'sparseCategoricalCrossentropy', weight: 1 }], 'data.train', false);
  return rows.parts.find((p) => p.role === 'target')!.shape;
}

const indices = (shape: number[], at: (i: number) => number = (i) => i % 3): NdArray => ({
  dtype: 'int32',
  shape,
  data: Int32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => at(i)),
});

test('[n, 5] and [n, 5, 1] labels of a [n, 5, 3] output are staged as one index per step', () => {
  assert.deepEqual(targetShape(indices([N, 5]), [null, 5, 3]), [5]);
  assert.deepEqual(targetShape(indices([N, 5, 1]), [null, 5, 3]), [5]);
  assert.deepEqual(targetShape(indices([N]), [null, 3]), []);
});

test('labels of another count per sample are refused with both shapes', () => {
  assert.throws(
    () => targetShape(indices([N, 4]), [null, 5, 3]),
    /data\.train: sparseCategoricalCrossentropy wants an index per position: rows of \[5\] or \[5, 1\] \(the model's output is \[batch, 5, 3\]\), but label rows of labels\.npy have shape \[4\]/,
  );
  assert.throws(
    () => targetShape({ dtype: 'float32', shape: [N, 5, 3], data: new Float32Array(N * 15) }, [null, 5, 3]),
    (e: Error & { hint?: string }) =>
      /label rows of labels\.npy have shape \[5, 3\]/.test(e.message) && e.hint === 'use categoricalCrossentropy for one-hot labels',
  );
});

test('an index that is not one of the 3 classes names its sample', () => {
  assert.throws(
    () =>
      targetShape(
        indices([N, 5], (i) => (i === 13 ? 3 : 0)),
        [null, 5, 3],
      ),
    /data\.train: label of sample 2 in labels\.npy is 3; the loss expects class indices 0\.\.2 \(the model has 3 classes\)/,
  );
});
