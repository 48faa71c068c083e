// A network by name whose head does not fit the data's classes: the hint names the key that
// sizes it, model.classes, where a model of the user's own is told to size its last layer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkClassesFitModel } from '../../src/data/classes.ts';

const hint = (net: boolean, found = false): string => {
  const mapping = { classes: ['cat', 'dog', 'owl'], from: 'data.train', ...(found ? { found: { file: 'labels.csv', lines: [2, 3, 4] } } : {}) };
  try {
    checkClassesFitModel(mapping, 2, 'data.train', net);
  } catch (e) {
    return (e as { hint?: string }).hint ?? '';
  }
  return assert.fail('not refused');
};

test('a network by name: the hint says model.classes, not layer units', () => {
  assert.equal(hint(true), "set model.classes to 3 (or leave it out: it defaults to the data's class count), or list the model's 2 classes in data.classes");
  assert.match(hint(true, true), /set model\.classes to 3/);
  assert.doesNotMatch(hint(true) + hint(true, true), /units/);
});

test("a model of the user's own: the hint sizes its last layer", () => {
  assert.equal(hint(false), "give the model's last layer 3 units (softmax), or list the model's 2 classes in data.classes");
  assert.match(hint(false, true), /give the model's last layer 3 units/);
});
