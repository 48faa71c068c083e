// Class-name labels: labels.json ({"classes": [...]}, the sorted names of data.train) is written
// beside every model the run writes -- final/, final-ema/, best/, each checkpoint -- with the
// same bytes on 1 and on 2 workers, and the run's header names the mapping.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { NAMES, writeClassCsv } from '../helpers/class-csv.ts';
import { buildConfig, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('labels-json');
const trainCsv = writeClassCsv(dir, 'train', 40, 3);
const evalCsv = writeClassCsv(dir, 'eval', 12, 4);
const WANT = `${JSON.stringify({ classes: [...NAMES].sort() })}\n`; // ["ant","cat, wild","zebra"]
const DIRS = ['final', 'final-ema', 'best', 'checkpoints/step-5', 'checkpoints/step-10'];

async function run(workers: number): Promise<{ files: Record<string, Buffer>; lines: string[] }> {
  const cfg = buildConfig(
    dir,
    {
      name: `labels-${workers}`,
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy',
      data: {
        train: { type: 'csv', path: trainCsv.path, label: 'label', labelType: 'class' },
        eval: { type: 'csv', path: evalCsv.path, label: 'label', labelType: 'class' },
      },
      training: { batchSize: 8, epochs: 2, ema: 0.9 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
      checkpoint: { every: 5, best: { monitor: 'eval.loss' } },
    },
    workers,
  );
  const lines: string[] = [];
  const out: Progress = { step() {}, line: (t) => lines.push(t), done() {} };
  await train(cfg, out);
  const files: Record<string, Buffer> = {};
  for (const d of DIRS) {
    const file = path.join(cfg.runDir, d, 'labels.json');
    assert.ok(fs.existsSync(path.join(cfg.runDir, d, 'model.json')), `${d}/model.json`);
    assert.ok(fs.existsSync(file), `no labels.json in ${d} (${workers} workers)`);
    files[d] = fs.readFileSync(file);
  }
  return { files, lines };
}

test('labels.json beside every model, the same bytes on 1 and 2 workers, and the header names the mapping', async () => {
  const one = await run(1);
  const two = await run(2);
  for (const d of DIRS) {
    assert.equal(one.files[d]!.toString('utf8'), WANT, `${d} on 1 worker`);
    assert.ok(one.files[d]!.equals(two.files[d]!), `${d}: 1 and 2 workers wrote different bytes`);
  }
  for (const { lines } of [one, two]) {
    assert.ok(lines.includes('  labels      3 classes from data.train (sorted): 0 "ant", 1 "cat, wild", 2 "zebra"'), lines.join('\n'));
  }
});
