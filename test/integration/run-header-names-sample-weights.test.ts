// The run header names what weighs the training loss: an npy source's weights file, a csv
// source's weight column, and no sample weights for a source without them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { buildConfig, FEATURES, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('header-sample-weights');
const N = 12;
const npy = writeDataset(dir, 'd', N, 'index', 1);
const weights = writeWeights(dir, 'd', N, 2);

/** The same rows as a CSV with a weight column w. */
function writeCsv(): string {
  const x = readNpy(npy.features).data as Float32Array;
  const y = readNpy(npy.labels).data as Int32Array;
  const rows = Array.from({ length: N }, (_, i) => [...x.subarray(i * FEATURES, (i + 1) * FEATURES), y[i], weights.values[i]].join(','));
  const file = path.join(dir, 'd.csv');
  fs.writeFileSync(file, `${[...Array.from({ length: FEATURES }, (_, f) => `f${f}`), 'label', 'w'].join(',')}\n${rows.join('\n')}\n`);
  return file;
}

async function headerWeights(name: string, source: Record<string, unknown>): Promise<string | undefined> {
  const lines: string[] = [];
  const out: Progress = { step() {}, line: (t) => void lines.push(t), done() {} };
  const cfg = buildConfig(
    dir,
    {
      name,
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: source },
      training: { batchSize: 4, steps: 1 },
      optimizer: { name: 'sgd' },
    },
    1,
  );
  await train(cfg, out);
  return lines.find((l) => l.trimStart().startsWith('weights'));
}

test("the header names an npy source's weights file and a csv source's weight column", async () => {
  assert.match(
    (await headerWeights('npy', { ...npy, weights: weights.file })) ?? '',
    new RegExp(`training: sample weights ${weights.file.replace(/[.\\]/g, '\\$&')}, loss`),
  );
  assert.match((await headerWeights('csv', { type: 'csv', path: writeCsv(), label: 'label', weight: 'w' })) ?? '', /training: sample weights w, loss/);
  assert.equal(await headerWeights('plain', npy), undefined);
});
