import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadDataset } from '../../src/data/dataset.ts';
import { DataError } from '../../src/shared/errors.ts';
import { writeNpy } from '../../src/shared/npy.ts';

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dataset-npy-'));
    try {
      await fn(dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'loadDataset reads an npy features/labels pair',
  withDir(async (dir) => {
    const features = path.join(dir, 'x.npy');
    const labels = path.join(dir, 'y.npy');
    writeNpy(features, { dtype: 'float32', shape: [5, 3], data: Float32Array.from({ length: 15 }, (_, i) => i / 2) });
    writeNpy(labels, { dtype: 'int32', shape: [5], data: Int32Array.of(0, 1, 2, 1, 0) });
    const ds = await loadDataset({ type: 'npy', features, labels }, 'data.train');
    assert.equal(ds.count, 5);
    assert.deepEqual(ds.features.shape, [5, 3]);
    assert.equal(ds.features.toArray().data[14], 7);
    assert.deepEqual(ds.labels.toArray(), { dtype: 'int32', shape: [5], data: Int32Array.of(0, 1, 2, 1, 0) });
    assert.match(ds.source, /x\.npy/);
  }),
);

test(
  'loadDataset rejects features and labels of different counts, naming both files, counts and key',
  withDir(async (dir) => {
    const features = path.join(dir, 'x.npy');
    const labels = path.join(dir, 'y.npy');
    writeNpy(features, { dtype: 'float32', shape: [5, 3], data: new Float32Array(15) });
    writeNpy(labels, { dtype: 'float32', shape: [4, 10], data: new Float32Array(40) });
    await assert.rejects(loadDataset({ type: 'npy', features, labels }, 'data.eval'), (e: unknown) => {
      assert.ok(e instanceof DataError && e.code === 'E_DATA');
      assert.equal(e.message, `data.eval: features ${features} hold 5 samples but labels ${labels} hold 4 (expected the same first dimension)`);
      return true;
    });
  }),
);

test(
  'loadDataset reports a missing file and a scalar array',
  withDir(async (dir) => {
    const features = path.join(dir, 'x.npy');
    const scalar = path.join(dir, 's.npy');
    writeNpy(features, { dtype: 'float32', shape: [2, 2], data: new Float32Array(4) });
    writeNpy(scalar, { dtype: 'int32', shape: [], data: Int32Array.of(3) });
    const missing = path.join(dir, 'missing.npy');
    await assert.rejects(
      loadDataset({ type: 'npy', features, labels: missing }, 'data.train'),
      (e: unknown) => e instanceof DataError && e.message === `${missing}: no such file`,
    );
    await assert.rejects(
      loadDataset({ type: 'npy', features, labels: scalar }, 'data.train'),
      (e: unknown) => e instanceof DataError && e.message.startsWith(`data.train: ${scalar} holds a scalar`),
    );
  }),
);

test('loadDataset serves the mnist source', async () => {
  const ds = await loadDataset({ type: 'mnist', offset: 8000, count: 2000, labels: 'index' }, 'data.eval');
  assert.equal(ds.count, 2000);
  assert.deepEqual(ds.features.shape, [2000, 784]);
  assert.deepEqual(ds.labels.shape, [2000]);
  assert.equal(ds.source, 'mnist digits [8000, 10000)');
});
