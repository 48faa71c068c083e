// `predict --input`: one .npy path (a model with one input, as always), or name=path pairs, each
// input named once; a pair is told from a path by the text before its first '=' (no path
// separator in it). Mixed, repeated or empty values are usage errors that say what to write.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { parseInputArgs } from '../../src/coordinator/inference.ts';

const cwd = '/data';
const usage = (values: string[], message: RegExp) =>
  assert.throws(
    () => parseInputArgs(values, cwd),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_USAGE');
      assert.match(e.message, message);
      assert.match(e.hint ?? '', /--input image=x_image\.npy --input meta=x_meta\.npy/);
      return true;
    },
  );

test('one path, unnamed, resolved against cwd', () => {
  assert.deepEqual(parseInputArgs(['x.npy'], cwd), [{ name: '', file: '/data/x.npy' }]);
  // '=' after a path separator is part of the path; ./ makes a name with '=' a path.
  assert.deepEqual(parseInputArgs(['runs/a=b/x.npy'], cwd), [{ name: '', file: '/data/runs/a=b/x.npy' }]);
  assert.deepEqual(parseInputArgs(['./a=b.npy'], cwd), [{ name: '', file: '/data/a=b.npy' }]);
});

test('name=path pairs, in the order given', () => {
  assert.deepEqual(parseInputArgs(['meta=m.npy', 'image=/abs/i.npy'], cwd), [
    { name: 'meta', file: path.join(cwd, 'm.npy') },
    { name: 'image', file: '/abs/i.npy' },
  ]);
  assert.deepEqual(parseInputArgs(['image=x=1.npy'], cwd), [{ name: 'image', file: '/data/x=1.npy' }]);
});

test('refused: a name twice, an unnamed value among several, nothing after =, nothing at all', () => {
  usage(['image=a.npy', 'image=b.npy'], /^--input: the input 'image' is given more than once$/);
  usage(['image=a.npy', 'b.npy'], /^--input b\.npy: several inputs are given, but this one names no model input$/);
  usage(['image='], /^--input image=: no file after '='$/);
  usage([], /^--input: no input given$/);
});
