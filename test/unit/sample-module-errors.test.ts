import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadSampleModule } from '../../src/data/sample-module.ts';
import { DataError } from '../../src/shared/errors.ts';

let dir: string;
let n = 0;
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sample-module-errors-'));
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(code: string, ext = '.mjs'): string {
  const file = path.join(dir, `m${n++}${ext}`);
  fs.writeFileSync(file, code);
  return file;
}

/** Loading fails with a DataError (E_DATA, exit 2) that starts with the key path and the module file. */
async function rejects(code: string, re: RegExp, opts: { ext?: string; file?: string } = {}): Promise<DataError> {
  const file = opts.file ?? write(code, opts.ext);
  let caught: DataError | undefined;
  await assert.rejects(loadSampleModule({ type: 'module', module: file }, 'data.train'), (e: unknown) => {
    assert.ok(e instanceof DataError, `expected a DataError, got ${e instanceof Error ? e.stack : String(e)}`);
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.exitCode, 2);
    assert.ok(e.message.startsWith(`data.train: module ${file}`), e.message);
    assert.match(e.message, re);
    caught = e;
    return true;
  });
  return caught!;
}

test('a module that fails to import: its message', async () => {
  await rejects(`throw new Error('no data here');`, / \(data\.train\.module\) failed to import: no data here$/);
  await rejects(`export default function (( {`, / failed to import: /);
  await rejects('', / failed to import: /, { file: path.join(dir, 'missing.mjs') });
  await rejects(`import x from './nope.mjs'; export default x;`, / failed to import: .*nope\.mjs/);
});

test('no default export function', async () => {
  await rejects(`export const samples = [];`, / has no default export function \(its default export is undefined\)$/);
  await rejects(`export default [{ x: [1], y: 0 }];`, / has no default export function \(its default export is an array\)$/);
});

test('the default export throws, or returns something that is not iterable', async () => {
  await rejects(`export default async () => { throw new Error('boom'); }`, /: its default export threw: boom$/);
  await rejects(`export default () => 42;`, /: its default export returned number, which is neither an iterable of samples nor a tf\.data\.Dataset$/);
  await rejects(`export default () => 'x,y';`, /returned a string, which is neither/);
  await rejects(`export default () => ({ x: [1], y: 0 });`, /returned an object \(Object\), which is neither/);
  await rejects(`export default () => null;`, /returned null, which is neither/);
  await rejects(`export default () => ({ iterator: async () => ({}) });`, /the dataset's iterator\(\) gave an object \(Object\), which has no next\(\)/);
});

test('zero samples', async () => {
  await rejects(`export default async function* () {}`, /: produced no samples \(expected at least one \{ x, y \}\)$/);
  await rejects(`export default () => [];`, /produced no samples/);
});

test('a generator that throws mid-way names the sample index and runs its finally', async () => {
  const e = await rejects(
    `
    export default async function* () {
      try {
        yield { x: [1], y: 0 };
        yield { x: [2], y: 1 };
        throw new Error('disk gone');
      } finally {
        globalThis.__closedGenerator = true;
      }
    }`,
    /: threw while producing sample 2: disk gone$/,
  );
  assert.ok(e);
  const g = globalThis as { __closedGenerator?: boolean };
  assert.equal(g.__closedGenerator, true);
});

test('bad samples: not an object, missing y, ragged x, wrong value type', async () => {
  await rejects(`export default () => [{ x: [1], y: 0 }, 7];`, /: sample 1: is number \(expected \{ x, y \} or \{ xs, ys \}\)$/);
  await rejects(`export default () => [{ x: [1], label: 0 }];`, /: sample 0: has no y \(expected \{ x, y \} or \{ xs, ys \}; its keys are x, label\)$/);
  await rejects(
    `export default () => [{ x: [[1, 2], [3]], y: 0 }];`,
    /: sample 0: x is a ragged nested array: x\[1\] is of length 1 where the first element's shape says an array of length 2 \(expected shape \[2, 2\]\)$/,
  );
  await rejects(`export default () => [{ x: [[1, 2], 3], y: 0 }];`, /: sample 0: x is a ragged nested array: x\[1\] is number/);
  await rejects(
    `export default () => [{ x: 'abc', y: 0 }];`,
    /: sample 0: x is a string \(expected a number, an array of numbers, a typed array or a tensor, or an object of them by the model's input names\)$/,
  );
  await rejects(`export default () => [{ x: [1, '2'], y: 0 }];`, /: sample 0: x holds "2" \(string\) at flat position 1 \(expected finite numbers\)$/);
  await rejects(`export default () => [{ x: [], y: 0 }];`, /: sample 0: x has shape \[0\], no values \(expected at least one feature\)$/);
});

test('a sample whose shape differs from the first names its index and both shapes', async () => {
  const e = await rejects(
    `
    export default function* () {
      yield { x: [1, 2, 3], y: 0 };
      yield { x: [4, 5, 6], y: 1 };
      yield { x: [[7, 8, 9]], y: 2 };
    }`,
    /: sample 2: x has shape \[1, 3\] but sample 0's has shape \[3\] \(expected every sample's x to have the same shape\)$/,
  );
  assert.match(e.hint ?? '', /unbatched/);
  await rejects(`export default () => [{ x: [1], y: [0, 1] }, { x: [2], y: [1] }];`, /: sample 1: y has shape \[1\] but sample 0's has shape \[2\]/);
});

test('non-finite features and labels name the sample index', async () => {
  await rejects(`export default () => [{ x: [1], y: 0 }, { x: [NaN, 2], y: 0 }];`, /: sample 1: x has shape \[2\] but sample 0's/);
  await rejects(
    `export default () => [{ x: [1, 2], y: 0 }, { x: [3, NaN], y: 0 }];`,
    /: sample 1: x holds NaN at flat position 1 \(expected finite numbers\)$/,
  );
  await rejects(`export default () => [{ x: Float64Array.of(Infinity), y: 0 }];`, /: sample 0: x holds Infinity at flat position 0/);
  await rejects(`export default () => [{ x: [1e39], y: 0 }];`, /: sample 0: x holds 1e\+39 at flat position 0 \(too large for float32\)/);
  await rejects(`export default () => [{ x: [1], y: 0 }, { x: [1], y: -Infinity }];`, /: sample 1: y holds -Infinity at flat position 0/);
});
