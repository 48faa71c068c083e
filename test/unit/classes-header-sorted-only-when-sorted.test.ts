// The run header's classes line says "(sorted)" of data.train's classes only when they are in
// code-point order: a tfrecord split's numbered classes "0".."11" are in index order ("10" after
// "9"), which is not that order, while a folder's sorted names are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeMapping } from '../../src/data/classes.ts';

test('"(sorted)" for sorted names, not for classes numbered 0..11', () => {
  assert.equal(describeMapping(['bird', 'cat', 'dog'], 'data.train'), '3 classes from data.train (sorted): 0 "bird", 1 "cat", 2 "dog"');
  const numbered = Array.from({ length: 12 }, (_, i) => String(i));
  assert.match(describeMapping(numbered, 'data.train'), /^12 classes from data.train: 0 "0", 1 "1", /);
  assert.match(describeMapping(['b', 'a'], 'data.classes'), /^2 classes from data.classes: /);
});
