import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadDataset } from '../../src/data/dataset.ts';
import { loadSampleModule } from '../../src/data/sample-module.ts';

let dir: string;
let n = 0;
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sample-module-gen-'));
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(code: string, ext = '.mjs'): string {
  const file = path.join(dir, `m${n++}${ext}`);
  fs.writeFileSync(file, code);
  return file;
}

const load = (code: string, ext?: string, keyPath = 'data.train') => loadSampleModule({ type: 'module', module: write(code, ext) }, keyPath);

test('an async generator of { x: number[], y: int } gives float32 features and int32 labels', async () => {
  const ds = await load(`
    export default async function* () {
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 1));
        yield { x: [i, i + 0.5, -i], y: i % 3 };
      }
    }`);
  assert.equal(ds.count, 5);
  assert.deepEqual(ds.features.shape, [5, 3]);
  assert.equal(ds.features.dtype, 'float32');
  assert.deepEqual([...ds.features.toArray().data.subarray(6, 9)], [2, 2.5, -2]);
  assert.deepEqual(ds.labels.toArray(), { dtype: 'int32', shape: [5], data: Int32Array.of(0, 1, 2, 0, 1) });
  assert.match(ds.source, /^module .*m\d+\.mjs$/);
});

test('a TypeScript module gets { split } and may be an async function returning a generator', async () => {
  const ds = await load(
    `
    interface Ctx { split: string }
    export default async function make(ctx: Ctx): Promise<AsyncGenerator<{ x: Float32Array; y: number[] }>> {
      const n: number = ctx.split === 'data.eval' ? 2 : 4;
      return (async function* () {
        for (let i = 0; i < n; i++) yield { x: Float32Array.of(i, i), y: [i / 2, 1] };
      })();
    }`,
    '.ts',
    'data.eval',
  );
  assert.equal(ds.count, 2);
  assert.deepEqual(ds.features.toArray(), { dtype: 'float32', shape: [2, 2], data: Float32Array.of(0, 0, 1, 1) });
  // y is not an integer scalar: float32 [n, ...yShape]
  assert.deepEqual(ds.labels.toArray(), { dtype: 'float32', shape: [2, 2], data: Float32Array.of(0, 1, 0.5, 1) });
});

test('nested arrays keep their shape; non-integer scalar labels are float32 [n]', async () => {
  const ds = await load(`
    export default function () {
      return [
        { x: [[1, 2, 3], [4, 5, 6]], y: 0.5 },
        { x: [Float32Array.of(7, 8, 9), [10, 11, 12]], y: 2 },
      ];
    }`);
  assert.deepEqual(ds.features.toArray(), { dtype: 'float32', shape: [2, 2, 3], data: Float32Array.from({ length: 12 }, (_, i) => i + 1) });
  assert.deepEqual(ds.labels.toArray(), { dtype: 'float32', shape: [2], data: Float32Array.of(0.5, 2) });
});

test('a sync generator, { xs, ys } keys, and scalar x', async () => {
  const ds = await load(`
    export default function* () {
      yield { xs: 1.5, ys: 3 };
      yield { xs: 2.5, ys: 4 };
    }`);
  assert.deepEqual(ds.features.toArray(), { dtype: 'float32', shape: [2], data: Float32Array.of(1.5, 2.5) });
  assert.deepEqual(ds.labels.toArray(), { dtype: 'int32', shape: [2], data: Int32Array.of(3, 4) });
});

test('loadDataset dispatches type module, and a large generator is collected whole', async () => {
  const file = write(`
    export default async function* () {
      for (let i = 0; i < 20000; i++) yield { x: new Float32Array(16).fill(i), y: i % 10 };
    }`);
  const ds = await loadDataset({ type: 'module', module: file }, 'data.train');
  assert.equal(ds.count, 20000);
  assert.deepEqual(ds.features.shape, [20000, 16]);
  assert.equal(ds.features.toArray().data.length, 20000 * 16);
  assert.equal(ds.features.toArray().data[16 * 19999 + 15], 19999);
  assert.equal(ds.labels.toArray().data[19999], 9);
});
