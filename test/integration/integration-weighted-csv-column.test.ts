// Sample weights from a CSV column: the column is each row's weight and not a feature (the model
// has 6 inputs; the file 8 columns: 6 features, the weight, the label), and 2 workers on uneven
// shards train the model of the weighted single-process reference on the same numbers as .npy.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { readNpy } from '../../src/shared/npy.ts';
import {
  assertWeightsClose,
  buildConfig,
  FEATURES,
  initialWeights,
  loadTf,
  silent,
  tempDir,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';
import { sampleWeightsOf, weightedReferenceTrain, writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('weighted-csv');
const COUNT = 30;

test('a csv weight column on 2 workers equals the weighted reference over the same data as .npy', async (t) => {
  const npy = writeDataset(dir, 'train', COUNT, 'index', 21);
  const w = writeWeights(dir, 'train', COUNT, 7);
  // The same numbers as text: a float32 printed as the shortest double that reads back to it.
  const x = readNpy(npy.features).data;
  const y = readNpy(npy.labels).data;
  const header = [...Array.from({ length: 3 }, (_, f) => `f${f}`), 'weight', ...Array.from({ length: FEATURES - 3 }, (_, f) => `f${f + 3}`), 'label'];
  const lines = [header.join(',')];
  for (let i = 0; i < COUNT; i++) {
    const f = Array.from(x.subarray(i * FEATURES, (i + 1) * FEATURES), String);
    lines.push([...f.slice(0, 3), String(w.values[i]), ...f.slice(3), String(y[i])].join(','));
  }
  const csv = path.join(dir, 'train.csv');
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
  const raw = (train: object) => ({
    name: 'csv-weight',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train },
    training: { batchSize: 7, epochs: 2, seed: 6 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  });
  const tf = await loadTf();
  const refCfg = buildConfig(dir, raw(npy), 1);
  const ref = await weightedReferenceTrain(refCfg, sampleWeightsOf(tf, npy, null, w.values));
  const r = await train(buildConfig(dir, raw({ type: 'csv', path: csv, label: 'label', weight: 'weight' }), 2), silent);
  assertWeightsClose(t, r.weights, ref.weights, 'csv weight column, N=2', { initial: await initialWeights(refCfg) });
  ref.model.dispose();
});
