// A worker error met deterministically in the run's first step (here a layer of the model that
// throws on any batch of more than one sample, as tfjs's oneHot did for a 1-unit softmax) is not
// retried and offers no --resume: on 2 workers every rank fails the same way, so no restart is
// spent (exit 1, E_WORKER, no checkpoint, no --resume line); on 1 worker the one restart that
// tells a crash from a deterministic error is spent, and the same error again ends the run.
// (The op check's batch of one passes, so the worker starts and the error is the step's.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { MgpuError } from '../../src/shared/errors.ts';
import { readMetrics, writeConfigFile } from '../helpers/chaos.ts';
import { runCli } from '../helpers/run-cli.ts';
import { buildConfig, FEATURES, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('first-step-failure');
const model = path.join(dir, 'throwing-model.mjs');
fs.writeFileSync(
  model,
  `export default function build(tf) {
  class ThrowsOnBatches extends tf.layers.Layer {
    static className = 'ThrowsOnBatches';
    computeOutputShape(shape) { return shape; }
    call(inputs) {
      const x = Array.isArray(inputs) ? inputs[0] : inputs;
      if (x.shape[0] > 1) throw new Error('ThrowsOnBatches cannot take a batch of ' + x.shape[0]);
      return tf.clone(x);
    }
  }
  tf.serialization.registerClass(ThrowsOnBatches);
  return tf.sequential({ layers: [
    tf.layers.dense({ inputShape: [${FEATURES}], units: 3, activation: 'softmax' }),
    new ThrowsOnBatches({}),
  ] });
}
`,
);
const raw = (name: string) => ({
  name,
  model: { module: model },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 5) },
  training: { batchSize: 8, steps: 4, seed: 1 },
  optimizer: { name: 'sgd', learningRate: 0.1 },
  reliability: { onWorkerFailure: 'restart', maxRestarts: 3 },
  runDir: path.join(dir, name),
});

test('every rank fails the same way in the first step (step 1): no restart, exit 1, no checkpoint and no --resume', () => {
  const r = runCli(['train', writeConfigFile(dir, 'two', raw('two')), '--simulate', '2', '--backend', 'cpu']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /error E_WORKER: worker rank 0 \(GPU \S+\) failed in step 1: ThrowsOnBatches cannot take a batch of 4 \(every rank \(2\) failed the same way, in the run's first step: it is not retried\)/,
  );
  assert.match(r.stderr, /hint: no step was trained, so there is nothing to resume/);
  assert.doesNotMatch(r.stdout + r.stderr, /--resume|restarting rank/);
  assert.equal(fs.existsSync(path.join(dir, 'two', 'checkpoints')), false, 'a checkpoint of no step was written');
});

test('one worker: one restart, then the same error again ends the run, with no --resume', async () => {
  const lines: string[] = [];
  const out: Progress = { step() {}, line: (t) => void lines.push(t), done() {} };
  const cfg = buildConfig(dir, raw('one'), 1);
  await assert.rejects(train(cfg, out), (e: unknown) => {
    assert.ok(e instanceof MgpuError, String(e));
    assert.equal(e.code, 'E_WORKER');
    assert.equal(e.exitCode, 1);
    assert.match(
      e.message,
      /cannot take a batch of 8 \(the same error again after a restart, before any step finished, in the run's first step: it is not retried\)/,
    );
    assert.doesNotMatch(e.hint ?? '', /--resume|last completed step/);
    return true;
  });
  assert.equal(lines.filter((l) => l.startsWith('restarting rank 0')).length, 1, lines.join('\n'));
  const failures = readMetrics(path.join(cfg.runDir, 'metrics.jsonl')).filter((l) => l.type === 'failure');
  assert.deepEqual(
    failures.map((f) => [f.step, f.action]),
    [[1, 'restart']], // metrics.jsonl numbers steps from 1, as the train lines
  );
});
