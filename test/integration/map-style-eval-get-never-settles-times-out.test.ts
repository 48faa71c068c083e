// An evaluation waits for its rows as a step does: an eval split's map-style get() whose Promise
// never settles is E_DATA at reliability.stepTimeout naming the sample, the split (data.eval)
// and the module, and the step trained before the evaluation is kept in a checkpoint.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { HANGING_SAMPLE, writeHangingModule } from '../helpers/hanging-get.ts';
import { buildConfig, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('eval-get-never-settles');
const TIMEOUT_S = 12; // the run's stepTimeout, which the wait for get() has
// Worker start-up has its own deadline: however long a loaded machine takes to start them, the
// run fails at get(), not in init.
const START_TIMEOUT_S = 120;

test("an eval split's get() that never settles: E_DATA at stepTimeout naming data.eval's sample, the step kept", { timeout: 180_000 }, async () => {
  const { module } = writeHangingModule(dir, 'eval', "split === 'data.eval'");
  const source = { type: 'module', module };
  const cfg = buildConfig(
    dir,
    {
      name: 'eval-hangs',
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: source, eval: source },
      training: { batchSize: 8, epochs: 2, seed: 2 },
      optimizer: { name: 'sgd', learningRate: 0.1 },
      eval: { every: 'epoch' },
      reliability: { stepTimeout: TIMEOUT_S, startTimeout: START_TIMEOUT_S },
    },
    1,
  );
  const err = (await train(cfg, silent).then(
    () => assert.fail('the run should fail'),
    (e: unknown) => e,
  )) as Error & { code: string; exitCode: number; hint?: string };
  assert.equal(err.code, 'E_DATA', err.message);
  assert.equal(err.exitCode, 2);
  assert.equal(
    err.message,
    `data.eval: module ${module}: sample ${HANGING_SAMPLE}: get(${HANGING_SAMPLE}, { epoch: 0, split: 'data.eval' }) has not settled after ${TIMEOUT_S} s (reliability.stepTimeout: waiting for data is part of the step's deadline)`,
  );
  assert.match(err.hint ?? '', /the last completed step \(1\) is in \S+step-1;/);
});
