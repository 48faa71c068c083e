// --resume continues with the run's own resolved config, saved in the checkpoint: a --set given
// to the first run need not be repeated. A --set on resume that changes what the checkpoint
// fixes (here the learning rate) is refused naming the old and new values, before any worker
// starts, unless --allow-changed names it; harmless ones (the run's length, logging) are
// allowed and reported in one line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { finalWeights, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('resume-config');
const runDir = path.join(dir, 'run');
const file = writeConfigFile(dir, 'exp', {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 24, 'onehot', 4) },
  training: { batchSize: 8, steps: 6, seed: 3 },
  optimizer: { name: 'sgd', learningRate: 0.1 },
  checkpoint: { every: 3 },
  devices: { simulate: 2, backend: 'cpu' },
  runDir,
});
const metrics = () => fs.readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8');

test("the first run's --set is restored on resume; extending steps and logging are reported; the result is the uninterrupted run's", async () => {
  const refDir = path.join(dir, 'reference');
  const ref = await runCliAsync(['train', file, '--set', 'optimizer.learningRate=0.3', '--set', 'training.steps=9', '--run-dir', refDir]);
  assert.equal(ref.code, 0, ref.stderr);
  const first = await runCliAsync(['train', file, '--set', 'optimizer.learningRate=0.3']);
  assert.equal(first.code, 0, first.stderr);

  const resumed = await runCliAsync(['train', file, '--resume', '--set', 'training.steps=9', '--set', 'log.every=1']);
  assert.equal(resumed.code, 0, resumed.stderr);
  const reported = resumed.stdout.split('\n').filter((l) => l.startsWith('changed on resume:'));
  assert.deepEqual(reported, ['changed on resume: training.steps 6 → 9, log.every 10 → 1'], resumed.stdout);
  assert.match(
    resumed.stdout,
    /^resuming with the run's saved config; where .*exp\.json differs it is not used: optimizer\.learningRate 0\.3 \(file: 0\.1\)$/m,
  );
  assert.match(resumed.stdout, /resuming from .*step-6 at step 6 of 9/);
  // Bit-identical to 9 steps at learning rate 0.3 from the start: the file's 0.1 was not used.
  assert.ok(finalWeights(runDir).equals(finalWeights(refDir)), 'the resumed run is not the uninterrupted run at the restored learning rate');
  const saved = parse(fs.readFileSync(path.join(runDir, 'config.yaml'), 'utf8'));
  assert.equal(saved.optimizer.learningRate, 0.3);
  assert.equal(saved.training.steps, 9);
});

test('a --set of the learning rate on resume is refused, naming old and new values, before any worker starts', async () => {
  const before = metrics();
  const procs = tagProcesses();
  const r = await runCliAsync(['train', file, '--resume', '--set', 'training.steps=12', '--set', 'optimizer.learningRate=0.5'], { env: procs.env });
  assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /^error E_CONFIG: cannot resume from .*step-9: optimizer\.learningRate is 0\.5, the checkpoint was trained with 0\.3$/m);
  assert.match(r.stderr, /hint: .*--allow-changed optimizer\.learningRate/);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.doesNotMatch(r.stdout, /rank 0:/, 'workers were started');
  assert.equal(metrics(), before, 'metrics.jsonl was written');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
});

test('--allow-changed optimizer.learningRate accepts it, and the line says so', async () => {
  const r = await runCliAsync([
    'train',
    file,
    '--resume',
    '--set',
    'training.steps=12',
    '--set',
    'optimizer.learningRate=0.5',
    '--allow-changed',
    'optimizer.learningRate',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^changed on resume: training\.steps 9 → 12, optimizer\.learningRate 0\.3 → 0\.5 \(--allow-changed\)$/m);
  assert.match(r.stdout, /resuming from .*step-9 at step 9 of 12/);
});

test('--allow-changed without --resume is a usage error', async () => {
  const r = await runCliAsync(['train', file, '--allow-changed', 'optimizer']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /error E_USAGE: --allow-changed applies to --resume only/);
});
