// A worker that hangs during evaluation (its model blocks in inference mode, on rank 1 only):
// the eval chunk has a deadline (reliability.stepTimeout) like every other wait on workers, so
// the run fails with a stall error naming the rank instead of waiting forever; the hung worker
// is killed. The same through `mgpu-train eval` (exit 1, no stack trace).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { train } from '../../src/coordinator/train.ts';
import { MgpuError, messageOf } from '../../src/shared/errors.ts';
import { checkpointSteps, runCliAsync, workerPids, writeConfigFile } from '../helpers/chaos.ts';
import { buildConfig, FEATURES, CLASSES, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-eval-stall');
// Seconds: the eval deadline (stepTimeout). The workers' start-up has its own (startTimeout),
// generous, so that a loaded machine's slow start-up fails nothing before the eval that hangs.
const STEP_TIMEOUT = 15;
const START_TIMEOUT = 120;

// Trains normally; in inference mode rank 1 blocks its thread (for a minute at most, so that a
// run of this test that fails leaves no process behind for long).
const model = path.join(dir, 'hangs-in-eval.mjs');
fs.writeFileSync(
  model,
  `export default function build(tf, ctx) {
  class HangInInference extends tf.layers.Layer {
    static className = 'HangInInference';
    call(inputs, kwargs) {
      if (ctx.rank === 1 && !kwargs.training) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
      return tf.clone(Array.isArray(inputs) ? inputs[0] : inputs);
    }
  }
  tf.serialization.registerClass(HangInInference);
  return tf.sequential({ layers: [
    tf.layers.dense({ inputShape: [${FEATURES}], units: ${CLASSES}, activation: 'softmax' }),
    new HangInInference({}),
  ] });
}
`,
);
const raw = {
  name: 'eval-stall',
  model: { module: model },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 3), eval: writeDataset(dir, 'eval', 20, 'onehot', 4) },
  training: { batchSize: 10, steps: 3, seed: 1 },
  optimizer: { name: 'sgd', learningRate: 0.1 },
  reliability: { onWorkerFailure: 'abort', stepTimeout: STEP_TIMEOUT, startTimeout: START_TIMEOUT },
};
const STALL = new RegExp(`worker rank 1 \\(GPU 1\\) failed in eval: stalled: no reply after \\d+\\.\\d s \\(deadline ${STEP_TIMEOUT}\\.0 s\\)`);

test('a worker that hangs in eval: the run fails with a stall error naming rank 1, instead of hanging', { timeout: 90_000 }, async (t) => {
  const cfg = buildConfig(dir, raw, 2);
  const lines: string[] = [];
  const out: Progress = { step() {}, line: (l) => void lines.push(l), done() {} };
  const t0 = Date.now();
  const err = await train(cfg, out).then(
    () => null,
    (e: unknown) => e,
  );
  t.diagnostic(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${messageOf(err)}`);
  assert.ok(err instanceof MgpuError, `the run did not fail: ${String(err)}\n${lines.join('\n')}`);
  assert.equal(err.code, 'E_WORKER');
  assert.equal(err.exitCode, 1);
  assert.match(err.message, STALL);
  assert.match(err.hint ?? '', /the worker was killed; see reliability\.stepTimeout/);
  assert.deepEqual(checkpointSteps(cfg.runDir), [3], 'the trained steps are in a checkpoint');
  assert.deepEqual([...workerPids(process.pid).keys()], [], 'worker processes left after the run');
});

test('mgpu-train eval with a worker that hangs: exit 1, the stall named, no stack trace', { timeout: 90_000 }, async (t) => {
  const runDir = buildConfig(dir, raw, 2).runDir; // the checkpoint the first test left
  assert.deepEqual(checkpointSteps(runDir), [3], 'the first test left a checkpoint');
  const file = writeConfigFile(dir, 'eval-stall', raw);
  const r = await runCliAsync(['eval', file, '--checkpoint', runDir, '--simulate', '2', '--backend', 'cpu'], { timeoutMs: 80_000 });
  t.diagnostic(
    r.stderr
      .trim()
      .split('\n')
      .filter((l) => /error|hint/.test(l))
      .join(' | '),
  );
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`error E_WORKER: ${STALL.source}`));
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace was printed');
});
