// --resume keeps the class mapping of the checkpoint (its labels.json), not one derived again
// from data.train as it is now: here the rows of its first class ("ant") are relabelled "zebra"
// between the two parts of the run (the same count: a resume on another count is refused), so
// its sorted names would now be 2 classes, not 3; the resume accepts the changed file with
// --allow-changed data.train. The resumed run must train as a run whose config fixed the 3
// classes from the start (data.classes) does, bit for bit, and keep the 3 classes in
// final/labels.json.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { Config } from '../../src/config/types.ts';
import { NAMES, writeClassCsv } from '../helpers/class-csv.ts';
import { buildConfig, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('resume-classes');
const sorted = [...NAMES].sort(); // ant, "cat, wild", zebra
const ANT = NAMES.indexOf('ant');

async function twoParts(name: string, classes: string[] | null): Promise<{ weights: Float32Array; cfg: Config }> {
  const csv = writeClassCsv(dir, name, 40, 9);
  assert.ok(csv.labels.includes('ant'));
  const raw = {
    name,
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'csv', path: csv.path, label: 'label', labelType: 'class' }, ...(classes ? { classes } : {}) },
    training: { batchSize: 8, steps: 5, seed: 2 },
    optimizer: { name: 'momentum', learningRate: 0.2 },
    checkpoint: { every: 5 },
  };
  await train(buildConfig(dir, raw, 2), silent);
  // The same path, now with no row of "ant".
  writeClassCsv(dir, name, 40, 9, { label: (c) => (c === ANT ? 'zebra' : NAMES[c]!) });
  const cfg = buildConfig(dir, { ...raw, training: { ...raw.training, steps: 12 } }, 2);
  const r = await train(cfg, silent, { resume: cfg.runDir, allowChanged: ['data.train'] });
  assert.equal(r.steps, 12);
  return { weights: r.weights, cfg };
}

test("a resumed run keeps the checkpoint's classes when data.train no longer has one of them", async () => {
  const resumed = await twoParts('derived', null);
  const fixed = await twoParts('fixed', sorted);
  assert.deepEqual(resumed.weights, fixed.weights);
  for (const d of ['final', 'checkpoints/step-12']) {
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(resumed.cfg.runDir, d, 'labels.json'), 'utf8')), { classes: sorted }, d);
  }
});
