// A run whose class names come from data.eval (labelType: class) and data.classes, while
// data.train's labels are indices, has a class mapping all the same: training.classWeights are
// keyed by those names, as the run resolves them, and train to the weights that the same index
// keys give without the eval split. (The config check once wanted index keys there, which the run
// then read as names: no key could pass both.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { NAMES, writeClassCsv } from '../helpers/class-csv.ts';
import { buildConfig, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('class-weights-eval-names');
const sorted = [...NAMES].sort();
const byIndex = writeClassCsv(dir, 'indices', 36, 5, { label: (c) => String(sorted.indexOf(NAMES[c]!)) });
const evalNames = writeClassCsv(dir, 'eval-names', 12, 6);

function config(name: string, data: Record<string, unknown>, classWeights: unknown) {
  return buildConfig(
    dir,
    {
      name,
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy',
      data,
      training: { batchSize: 8, epochs: 2, seed: 3, classWeights },
      optimizer: { name: 'sgd', learningRate: 0.2 },
    },
    1,
  );
}

test('class weights take the names data.eval and data.classes give, when data.train has indices', async () => {
  const train_ = { type: 'csv', path: byIndex.path, label: 'label', labelType: 'index' };
  const [heavy, light] = [sorted[2]!, sorted[0]!];
  const named = await train(
    config(
      'named',
      { train: train_, eval: { type: 'csv', path: evalNames.path, label: 'label', labelType: 'class' }, classes: sorted },
      { [heavy]: 4, [light]: 0.5 },
    ),
    silent,
  );
  const indexed = await train(config('indexed', { train: train_ }, { 2: 4, 0: 0.5 }), silent);
  assert.deepEqual(named.weights, indexed.weights);
  assert.equal(named.eval?.samples, 12, 'the eval split (names mapped by data.classes) was evaluated');
  assert.throws(
    () => config('list', { train: train_, eval: { type: 'csv', path: evalNames.path, label: 'label', labelType: 'class' }, classes: sorted }, [1, 2, 3]),
    /training\.classWeights: is a list, but data\.eval reads class names \(labelType: class\)/,
  );
});
