// predict replaces an earlier output only once the new one is whole: a write that fails part way
// (here the disk fills after half the bytes) leaves the previous predictions as they were, with
// no temporary file beside them, for a single .npy output and for a directory of them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { writePredictions } from '../../src/coordinator/inference.ts';
import type { PredictedOutput } from '../../src/coordinator/engine/eval-result.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const outputs = (v: number, names = ['out']): PredictedOutput[] => names.map((name) => ({ name, shape: [4, 2], values: new Float32Array(8).fill(v) }));

/** From now on every write stops after half its bytes with ENOSPC, as a full disk does. */
function diskFillsHalfway(t: TestContext): void {
  const write = fs.writeFileSync;
  t.mock.method(fs, 'writeFileSync', (file: fs.PathOrFileDescriptor, data: string | Uint8Array) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    write(file, bytes.subarray(0, bytes.length >> 1));
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  });
}

const contents = (dir: string) =>
  fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((f) => `${f} ${fs.statSync(path.join(dir, f)).isFile() ? fs.readFileSync(path.join(dir, f)).toString('base64') : '/'}`);

test('a failed write keeps the previous .npy predictions whole', (t) => {
  const dir = tempDir('predict-write');
  const file = path.join(dir, 'y.npy');
  writePredictions(file, outputs(1));
  const before = contents(dir);
  diskFillsHalfway(t);
  assert.throws(() => writePredictions(file, outputs(2)), { code: 'ENOSPC' });
  t.mock.restoreAll();
  assert.deepEqual(contents(dir), before);
});

test('a failed write keeps the previous directory of predictions whole', (t) => {
  const dir = tempDir('predict-write');
  const out = path.join(dir, 'preds');
  writePredictions(out, outputs(1, ['a', 'b']));
  const before = contents(dir);
  diskFillsHalfway(t);
  assert.throws(() => writePredictions(out, outputs(2, ['a', 'b'])), { code: 'ENOSPC' });
  t.mock.restoreAll();
  assert.deepEqual(contents(dir), before);
});
