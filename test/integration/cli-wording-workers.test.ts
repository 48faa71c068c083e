// What the commands print about their workers: `eval` and `predict` say they are evaluating or
// predicting (not training) on simulated GPUs when there is no GPU, and counts are plural only
// when they are more than one ("1 worker", "2 workers", never "worker(s)").
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { writeNpy } from '../../src/shared/npy.ts';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { fakeNvidiaSmi } from '../helpers/fake-nvidia-smi.ts';
import { FEATURES, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('wording');
const file = writeConfigFile(dir, 'wording', {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 24, 'onehot', 1), eval: writeDataset(dir, 'eval', 12, 'onehot', 2) },
  training: { batchSize: 8, steps: 2 },
  optimizer: { name: 'sgd' },
  devices: { backend: 'cpu' },
  runDir: path.join(dir, 'run'),
});
const noGpu = fakeNvidiaSmi(0, { fail: 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver' }).env;
const cores = Math.max(1, os.availableParallelism());
const gpus = cores === 1 ? '1 simulated GPU' : `${cores} simulated GPUs`;
const workers = cores === 1 ? '1 worker' : `${cores} workers`;

test('train on 1 simulated GPU: "1 worker"; eval and predict with no GPU: "evaluating/predicting on N simulated GPUs", "N workers"', async () => {
  const trained = await runCliAsync(['train', file, '--simulate', '1']);
  assert.equal(trained.code, 0, trained.stderr);
  assert.match(trained.stdout, /global 8 = 1 worker x 8 per worker/);

  const evaluated = await runCliAsync(['eval', file, '--checkpoint', path.join(dir, 'run')], { env: noGpu });
  assert.equal(evaluated.code, 0, evaluated.stderr);
  assert.match(evaluated.stdout, new RegExp(`no GPU found \\(.*\\); evaluating on ${gpus} on the CPU instead`));
  assert.match(evaluated.stdout, new RegExp(`on .*eval-y\\.npy, ${workers}:`));

  const input = path.join(dir, 'rows.npy');
  writeNpy(input, { dtype: 'float32', shape: [3, FEATURES], data: new Float32Array(3 * FEATURES).fill(0.5) });
  const output = path.join(dir, 'pred.npy');
  const predicted = await runCliAsync(['predict', file, '--checkpoint', path.join(dir, 'run', 'final'), '--input', input, '--output', output], { env: noGpu });
  assert.equal(predicted.code, 0, predicted.stderr);
  assert.match(predicted.stdout, new RegExp(`no GPU found \\(.*\\); predicting on ${gpus} on the CPU instead`));
  assert.match(predicted.stdout, new RegExp(`predicted 3 rows with ${workers} →`));
  for (const r of [trained, evaluated, predicted]) assert.doesNotMatch(r.stdout, /\(s\)|training on/);
});
