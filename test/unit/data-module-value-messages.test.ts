// A data module's messages print the value they refuse so that it cannot be misread: a string is
// quoted with its kind (`"20" (string)`, not `20`; `"a" (string)`, not `a`), an object with
// length but no get is told that get is missing (not to write a generator), and a syntax error
// names the file, line and column.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { mapStyleDataset } from '../../src/data/map-module.ts';
import type { MapStyle } from '../../src/data/map-style.ts';
import { loadSampleModule, produceModule } from '../../src/data/sample-module.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('module-value-messages');
let n = 0;

function write(code: string, ext = '.mjs'): string {
  const file = path.join(dir, `m${n++}${ext}`);
  fs.writeFileSync(file, code);
  return file;
}

/** The message of the E_DATA that reading the module's split (a map-style one: its rows 0-1) ends with. */
async function dataError(code: string, ext?: string): Promise<{ message: string; hint?: string }> {
  const file = write(code, ext);
  try {
    const made = await produceModule({ type: 'module', module: file }, 'data.train', null);
    if (typeof (made.produced as { get?: unknown }).get === 'function') {
      const ds = await mapStyleDataset(made.produced as MapStyle, made.where, 'data.train', made.file);
      await ds.pipeline!.ready(Uint32Array.of(0, 1), 0);
    } else await loadSampleModule({ type: 'module', module: file }, 'data.train');
  } catch (err) {
    const e = err as { code?: string; message: string; hint?: string };
    assert.equal(e.code, 'E_DATA', e.message);
    return e;
  }
  return assert.fail('the module should have been refused');
}

test('a length that is a string is printed quoted, as a string', async () => {
  const e = await dataError(`export default { length: "20", get: (i) => ({ x: [i], y: 0 }) };`);
  assert.match(e.message, /: its length is "20" \(string\) \(expected a whole number of samples, at least 1\)$/);
});

test('a string in x is printed quoted, from a generator and from get()', async () => {
  const gen = await dataError(`export default function* () { yield { x: ['a', 1], y: 0 }; }`);
  assert.match(gen.message, /: sample 0: x holds "a" \(string\) at flat position 0 \(expected finite numbers\)$/);
  const got = await dataError(`export default { length: 2, get: (i) => ({ x: i === 1 ? [1, 'a'] : [1, 2], y: 0 }) };`);
  assert.match(got.message, /: sample 1: x holds "a" \(string\) at flat position 1 \(expected finite numbers\)$/);
  const y = await dataError(`export default function* () { yield { x: [1], y: ['1'] }; }`);
  assert.match(y.message, /: sample 0: y holds "1" \(string\) at flat position 0/);
});

test('an object with length but no get is told that get is missing', async () => {
  const e = await dataError(`export default { length: 20 };`);
  assert.match(e.message, /: its default export is not map-style: it has length but no get \(a map-style module gives both/);
  assert.doesNotMatch(e.message + (e.hint ?? ''), /function\*|generator/);
  assert.match(e.hint ?? '', /length: 1000, get: \(i/);
  const returned = await dataError(`export default () => ({ length: 20 });`);
  assert.match(returned.message, /: its default export returned an object that is not map-style: it has length but no get/);
  const noLength = await dataError(`export default { get: (i) => ({ x: [i], y: 0 }) };`);
  assert.match(noLength.message, /: it has get but no length/);
  const notFunction = await dataError(`export default { length: 2, get: 5 };`);
  const quoted = await dataError(`export default { length: 2, get: 'rows' };`);
  assert.match(quoted.message, /: its get is "rows" \(string\) \(expected a function/);
  assert.match(notFunction.message, /: its get is 5 \(expected a function/);
});

test("a module's syntax error names its file, line and column", async () => {
  const body = 'export default function* () {\n  yield { x: [1, 2], y: 0\n  oops here\n}\n';
  // A .ts module: esbuild's error (through tsx), with its column.
  const ts = await dataError(body, '.ts');
  assert.ok(ts.message.endsWith(`failed to import: ${path.join(dir, `m${n - 1}.ts`)}:3:2: Expected "}" but found "oops"`), ts.message);
  assert.match(ts.hint ?? '', /^fix the module at the line and column the message names$/);
  // An .mjs module: Node's own SyntaxError, which names no place; node --check gives its line.
  const mjs = await dataError(body, '.mjs');
  assert.ok(mjs.message.endsWith(`failed to import: ${path.join(dir, `m${n - 1}.mjs`)}:3: Unexpected identifier 'oops'`), mjs.message);
  assert.match(mjs.hint ?? '', /^fix the module at the line the message names$/);
});
