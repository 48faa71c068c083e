// Training on class names gives the weights that training on the same rows with integer labels
// gives, when the integers are the sorted positions of the names: the names only stand for
// indices. Bit for bit: the same batches, the same int32 labels in the workers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { NAMES, writeClassCsv } from '../helpers/class-csv.ts';
import { buildConfig, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

test('class names train to the same weights as their sorted indices', async () => {
  const dir = tempDir('class-parity');
  const sorted = [...NAMES].sort();
  const byName = writeClassCsv(dir, 'names', 36, 5);
  const byIndex = writeClassCsv(dir, 'indices', 36, 5, { label: (c) => String(sorted.indexOf(NAMES[c]!)) });
  const evalNames = writeClassCsv(dir, 'eval-names', 10, 6);
  const evalIndex = writeClassCsv(dir, 'eval-indices', 10, 6, { label: (c) => String(sorted.indexOf(NAMES[c]!)) });
  // The fixture's own indices are not the sorted ones: a mapping that kept them would differ.
  assert.notDeepEqual(NAMES, sorted);
  const run = (name: string, trainPath: string, evalPath: string, labelType: string) =>
    train(
      buildConfig(
        dir,
        {
          name,
          model: { module: writeModelModule(dir, 'mlp') },
          loss: 'sparseCategoricalCrossentropy',
          data: { train: { type: 'csv', path: trainPath, label: 'label', labelType }, eval: { type: 'csv', path: evalPath, label: 'label', labelType } },
          training: { batchSize: 8, epochs: 2, seed: 3 },
          optimizer: { name: 'adam', learningRate: 0.05 },
        },
        2,
      ),
      silent,
    );
  const named = await run('names', byName.path, evalNames.path, 'class');
  const indexed = await run('indices', byIndex.path, evalIndex.path, 'index');
  assert.deepEqual(named.weights, indexed.weights);
  assert.equal(named.eval!.loss, indexed.eval!.loss);
  assert.equal(named.eval!.accuracy, indexed.eval!.accuracy);
});
