// A sample module's x and y may each be an object keyed by the model's input or output names:
// each name becomes its own array (features float32; targets int32 for integer scalars, else
// float32), in the order sample 0 gave the keys. Every sample must have the keys of sample 0,
// no more and no fewer, and be keyed or not as sample 0 was; the error names the sample and keys.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadSampleModule } from '../../src/data/sample-module.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sample-module-named-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const load = (body: string) => {
  const file = path.join(dir, `m${n++}.mjs`);
  fs.writeFileSync(file, `export default function* () { ${body} }\n`);
  return loadSampleModule({ type: 'module', module: file }, 'data.train');
};

test('x and y keyed by name: one array per name, in sample 0 key order, each with its own dtype', async () => {
  const ds = await load('for (let i = 0; i < 3; i++) yield { x: { b: [i, -i], a: i / 2 }, y: { c: i, d: [i + 0.5] } };');
  assert.deepEqual(
    ds.inputs!.map((a) => [a.name, a.array.dtype, a.array.shape, Array.from(a.array.toArray().data), a.module]),
    [
      ['b', 'float32', [3, 2], [0, -0, 1, -1, 2, -2], 'x'],
      ['a', 'float32', [3], [0, 0.5, 1], 'x'],
    ],
  );
  assert.deepEqual(
    ds.targets!.map((a) => [a.name, a.array.dtype, a.array.shape, Array.from(a.array.toArray().data), a.module]),
    [
      ['c', 'int32', [3], [0, 1, 2], 'y'],
      ['d', 'float32', [3, 1], [0.5, 1.5, 2.5], 'y'],
    ],
  );
  assert.equal(ds.features, ds.inputs![0]!.array, 'features is the first input');
  assert.equal(ds.labels, ds.targets![0]!.array, 'labels is the first target');
});

test('a sample whose keys differ from sample 0, or keyed where sample 0 was not: E_DATA naming the sample and keys', async () => {
  const cases: Array<[string, RegExp]> = [
    ['yield { x: { a: [1], b: [2] }, y: 0 }; yield { x: { a: [1] }, y: 1 };', /: sample 1: x has a but sample 0's x has a, b \(missing b\)$/],
    ['yield { x: { a: [1] }, y: 0 }; yield { x: { a: [1], z: [3] }, y: 1 };', /: sample 1: x has a, z but sample 0's x has a \(not in sample 0: z\)$/],
    [
      'yield { x: [1], y: 0 }; yield { x: { a: [1] }, y: 1 };',
      /: sample 1: x is an object of a but sample 0's x is one value \(expected every sample alike\)$/,
    ],
    [
      'yield { x: [1], y: { c: 0 } }; yield { x: [1], y: 1 };',
      /: sample 1: y is one value but sample 0's y is an object of c \(expected every sample alike\)$/,
    ],
    ['yield { x: {}, y: 0 };', /: sample 0: x is an empty object \(expected a value, or one value per model input name\)$/],
    ['yield { x: { a: [1] }, y: 0 }; yield { x: { a: [1, 2] }, y: 1 };', /: sample 1: x\.a has shape \[2\] but sample 0's has shape \[1\]/],
    ["yield { x: { a: 'p' }, y: 0 };", /: sample 0: x\.a is a string \(expected a number, an array of numbers, a typed array or a tensor\)$/],
  ];
  for (const [body, message] of cases) {
    await assert.rejects(load(body), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_DATA', body);
      assert.match(e.message, message, body);
      return true;
    });
  }
});
