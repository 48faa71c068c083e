// Once the workers have built the model, before any row is predicted: a .npy or .csv output
// takes a model with one output; a directory takes any model whose output names are safe file
// names, distinct ignoring case. Each refusal is a usage error naming the outputs and what to do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkOutputFitsModel, outputKind } from '../../src/coordinator/inference.ts';
import type { ModelLayout } from '../../src/shared/layout.ts';

const layout = (...names: string[]) => ({ outputs: names.map((name) => ({ name, shape: [null, 2] })) }) as unknown as ModelLayout;
const refused = (output: string, names: string[], message: RegExp, hint: RegExp) =>
  assert.throws(
    () => checkOutputFitsModel(output, layout(...names)),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_USAGE');
      assert.match(e.message, message);
      assert.match(e.hint ?? '', hint);
      return true;
    },
  );

test('what --output names: .npy, .csv (any case), else a directory', () => {
  assert.equal(outputKind('/o/y.npy'), 'npy');
  assert.equal(outputKind('/o/Y.NPY'), 'npy');
  assert.equal(outputKind('/o/y.csv'), 'csv');
  assert.equal(outputKind('/o/preds'), 'dir');
  assert.equal(outputKind('/o/preds.v2'), 'dir');
});

test('a model with one output: a file or a directory', () => {
  for (const output of ['/o/y.npy', '/o/y.csv', '/o/preds']) checkOutputFitsModel(output, layout('dense_Dense3'));
  checkOutputFitsModel('/o/preds', layout('class', 'box', 'box.v2', '_x-1'));
});

test('several outputs into one file are refused, with the directory to use instead', () => {
  refused(
    '/o/y.npy',
    ['class', 'box'],
    /^--output \/o\/y\.npy: the model has 2 outputs \('class', 'box'\); a \.npy file holds one$/,
    /--output \/o\/y writes class\.npy, box\.npy/,
  );
  refused(
    '/o/y.csv',
    ['class', 'box'],
    /^--output \/o\/y\.csv: the model has 2 outputs .*class names are those of a model with one output$/,
    /--output \/o\/y writes/,
  );
});

test('output names that cannot name a file are refused, not encoded', () => {
  refused('/o/preds', ['class', 'box/xy'], /the model's output 'box\/xy' is not a safe file name/, /rename the output layer/);
  refused('/o/preds', ['..'], /the model's output '\.\.' is not a safe file name/, /rename/);
  refused('/o/preds', ['-x'], /'-x' is not a safe file name/, /rename/);
  refused('/o/preds', ['a b'], /'a b' is not a safe file name/, /rename/);
  refused('/o/preds', ['Box', 'box'], /the model's outputs 'Box' and 'box' differ only in case/, /rename one/);
});
