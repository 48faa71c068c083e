// training.accumulateSteps larger than the smallest shard of a full batch (uneven splits: the
// smaller shards are a row short) is refused before the first step, naming the key, the sizes
// and the largest value that fits; that value itself trains.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('accumulate-past-shard');
const file = writeConfigFile(dir, 'exp', {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 14, 'onehot', 2) },
  training: { batchSize: 7, steps: 1 }, // over 2 workers: shards of 4 and 3 rows
  optimizer: { name: 'sgd' },
});
const run = (k: number, runDir: string) =>
  runCliAsync(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', path.join(dir, runDir), '--set', `training.accumulateSteps=${k}`]);

test('accumulateSteps 4 with shards of 4 and 3 rows: E_CONFIG, exit 2; 3 trains', async () => {
  const r = await run(4, 'four');
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^error E_CONFIG: training\.accumulateSteps: 4 micro-batches per worker, but batchSize 7 over 2 workers gives the smallest shard 3 rows: a micro-batch would be empty\n {2}hint: set training\.accumulateSteps to at most 3, or raise training\.batchSize to at least 8\n/m,
  );
  assert.ok(!fs.existsSync(path.join(dir, 'four', 'metrics.jsonl')), 'training started');
  const ok = await run(3, 'three');
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok(fs.existsSync(path.join(dir, 'three', 'final', 'model.json')));
});
