// Data with one class (an image folder with one class folder) against a model of several
// outputs: the error counts "1 class" and its hint asks for the other classes, not for a softmax
// of one unit (which always says 1); several classes keep the hint to size the last layer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkClassesFitModel } from '../../src/data/classes.ts';

const refusal = (classes: string[], outputs: number) => {
  try {
    checkClassesFitModel({ classes, from: 'data.train' }, outputs, 'data.train');
  } catch (e) {
    return e as Error & { code?: string; hint?: string };
  }
  return assert.fail('not refused');
};

test('one class: counted as one, and the hint asks for the others', () => {
  const e = refusal(['cat'], 2);
  assert.equal(e.code, 'E_DATA');
  assert.equal(e.message, 'data.train: 1 class (data.train: "cat") but the model has 2 outputs (expected one per class)');
  assert.match(e.hint ?? '', /^a classifier needs at least 2 classes: /);
});

test('several classes: the hint sizes the last layer', () => {
  const e = refusal(['cat', 'dog', 'owl'], 2);
  assert.match(e.message, /^data\.train: 3 classes /);
  assert.equal(e.hint, "give the model's last layer 3 units (softmax), or list the model's 2 classes in data.classes");
});
