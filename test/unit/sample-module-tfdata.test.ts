import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { loadSampleModule } from '../../src/data/sample-module.ts';

// The module lives in a temp dir, outside node_modules' reach: it imports tfjs by resolved URL.
const TFJS = import.meta.resolve('@tensorflow/tfjs');

let dir: string;
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sample-module-tfdata-'));
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a module returning a real tf.data.array of { xs, ys } tensors; every tensor is disposed', async () => {
  const file = path.join(dir, 'tfdata.ts');
  fs.writeFileSync(
    file,
    `
    import * as tf from ${JSON.stringify(TFJS)};
    export default function ({ split }: { split: string }) {
      const items = [];
      for (let i = 0; i < 6; i++) items.push({ xs: tf.tensor1d([i, i * 2, i * 3, 0.5]), ys: tf.scalar(i % 2, 'int32') });
      (globalThis as any).__tfdataSplit = split;
      return tf.data.array(items);
    }`,
  );
  const before = tf.memory().numTensors;
  const ds = await loadSampleModule({ type: 'module', module: file }, 'data.train');
  assert.equal((globalThis as { __tfdataSplit?: string }).__tfdataSplit, 'data.train');
  assert.equal(ds.count, 6);
  assert.deepEqual(ds.features.shape, [6, 4]);
  assert.deepEqual([...ds.features.data.subarray(8, 12)], [2, 4, 6, 0.5]);
  assert.deepEqual(ds.labels.toArray(), { dtype: 'int32', shape: [6], data: Int32Array.of(0, 1, 0, 1, 0, 1) });
  // tf.data.array clones each element on next(): the loader disposes the clones; the module's
  // own 12 source tensors stay alive (they belong to the module).
  assert.equal(tf.memory().numTensors - before, 12);
});

test('tf.data elements { x, y } with float one-hot ys, through map()', async () => {
  const file = path.join(dir, 'tfdata-map.mjs');
  fs.writeFileSync(
    file,
    `
    import * as tf from ${JSON.stringify(TFJS)};
    export default async () => tf.data.array([0, 1, 2]).map((i) => ({ x: tf.fill([2, 2], i), y: tf.oneHot(i, 3).toFloat() }));`,
  );
  const before = tf.memory().numTensors;
  const ds = await loadSampleModule({ type: 'module', module: file }, 'data.eval');
  assert.deepEqual(ds.features.toArray(), { dtype: 'float32', shape: [3, 2, 2], data: Float32Array.of(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2) });
  assert.deepEqual(ds.labels.toArray(), { dtype: 'float32', shape: [3, 3], data: Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1) });
  assert.equal(tf.memory().numTensors, before);
});

test('sample-module.ts itself never imports tfjs', () => {
  const source = fs.readFileSync(fileURLToPath(new URL('../../src/data/sample-module.ts', import.meta.url)), 'utf8');
  assert.doesNotMatch(source, /^\s*import\s[^;]*['"]@tensorflow\//m);
  assert.doesNotMatch(source, /import\(\s*['"]@tensorflow\//);
});
