// training.classWeights names classes when data.train reads class names: { <name>: weight } trains
// to the weights that { <sorted index of the name>: weight } gives on the same rows with integer
// labels. A name that is not a class is refused before the first step, naming it and the classes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { NAMES, writeClassCsv } from '../helpers/class-csv.ts';
import { buildConfig, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('class-weights-by-name');
const sorted = [...NAMES].sort();
const byName = writeClassCsv(dir, 'names', 36, 5);
const byIndex = writeClassCsv(dir, 'indices', 36, 5, { label: (c) => String(sorted.indexOf(NAMES[c]!)) });

function config(name: string, path: string, labelType: string, classWeights: unknown) {
  return buildConfig(
    dir,
    {
      name,
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'csv', path, label: 'label', labelType } },
      training: { batchSize: 8, epochs: 2, seed: 3, classWeights },
      optimizer: { name: 'sgd', learningRate: 0.2 },
    },
    2,
  );
}

test('class weights by name weigh the classes their sorted indices name', async () => {
  // NAMES[0] is not the first sorted name: weights kept by the fixture's own index would differ.
  const heavy = NAMES[0]!;
  const light = NAMES[2]!;
  assert.notEqual(sorted.indexOf(heavy), 0);
  const named = await train(config('names', byName.path, 'class', { [heavy]: 4, [light]: 0.5 }), silent);
  const indexed = await train(config('indices', byIndex.path, 'index', { [sorted.indexOf(heavy)]: 4, [sorted.indexOf(light)]: 0.5 }), silent);
  const unweighted = await train(config('plain', byName.path, 'class', null), silent);
  assert.deepEqual(named.weights, indexed.weights);
  assert.notDeepEqual(named.weights, unweighted.weights, 'the weights change training');
});

test('a class weight for a name that is not a class is refused, naming it and the classes', async () => {
  await assert.rejects(train(config('unknown', byName.path, 'class', { [NAMES[0]!]: 2, 'no-such-class': 3 }), silent), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'E_CONFIG');
    assert.match(e.message, /training\.classWeights\.no-such-class: "no-such-class" is not one of the 3 classes/);
    for (const n of NAMES) assert.ok(e.message.includes(n), e.message);
    return true;
  });
});

test('with class names, a list of class weights is refused (a list is by index)', () => {
  assert.throws(() => config('list', byName.path, 'class', [1, 2, 3]), /training\.classWeights: is a list, but data\.train reads class names/);
});
