// checkpoint.best, training.earlyStopping and schedule 'plateau' watch an eval figure: the
// monitor must be one the eval line has for this loss, there must be an eval set, early
// stopping and the plateau need evaluations during the run, and mode follows the monitor (max
// with accuracy, min with loss; the other one is refused). Each error names its key path.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-monitors-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const base = (over: Raw = {}, evalSet = true): Raw =>
  minimalConfig({ data: { train: { type: 'mnist', count: 900 }, ...(evalSet ? { evalFraction: 0.1 } : {}) }, optimizer: { name: 'sgd' }, ...over });
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });

test("defaults: Keras's, with mode from the monitor", () => {
  const c = validate(
    base({
      checkpoint: { best: {} },
      training: { batchSize: 32, earlyStopping: { monitor: 'eval.accuracy' } },
      schedule: { name: 'plateau', monitor: 'eval.top_k' },
    }),
  );
  assert.deepEqual(c.checkpoint.best, { monitor: 'eval.loss', mode: 'min' });
  assert.deepEqual(c.training.earlyStopping, { monitor: 'eval.accuracy', mode: 'max', patience: 0, minDelta: 0, restoreBest: false });
  const { factor, patience, minLr, cooldown, monitor, mode, minDelta } = c.schedule;
  assert.deepEqual(
    { factor, patience, minLr, cooldown, monitor, mode, minDelta },
    { factor: 0.1, patience: 10, minLr: 0, cooldown: 0, monitor: 'eval.top_k', mode: 'max', minDelta: 1e-4 },
  );
  assert.equal(validate(base()).training.earlyStopping, null);
  assert.equal(validate(base()).checkpoint.best, null);
});

test('a monitor that names no eval figure is refused, listing those that exist', () => {
  rejects(
    base({ checkpoint: { best: { monitor: 'val_loss' } } }),
    'checkpoint.best.monitor',
    /expected one of 'eval\.loss', 'eval\.accuracy', 'eval\.top_k', 'eval\.mae', got "val_loss"/,
  );
  rejects(base({ training: { batchSize: 32, earlyStopping: { monitor: 'eval.precision' } } }), 'training.earlyStopping.monitor', /expected one of/);
  rejects(base({ schedule: { name: 'plateau', monitor: 'loss' } }), 'schedule.monitor', /expected one of/);
});

test('a figure this loss does not measure is refused', () => {
  rejects(
    base({ loss: 'meanSquaredError', checkpoint: { best: { monitor: 'eval.accuracy' } } }),
    'checkpoint.best.monitor',
    /eval\.accuracy is not measured with loss meanSquaredError/,
    /eval\.loss or eval\.mae/,
  );
  rejects(
    base({ loss: 'binaryCrossentropy', training: { batchSize: 32, earlyStopping: { monitor: 'eval.top_k' } } }),
    'training.earlyStopping.monitor',
    /eval\.top_k is not measured with loss binaryCrossentropy/,
  );
});

test('without an eval set, every monitor is refused', () => {
  rejects(
    base({ checkpoint: { best: { monitor: 'eval.accuracy' } } }, false),
    'checkpoint.best.monitor',
    /no data\.eval \(or data\.evalFraction\)/,
    /data\.evalFraction/,
  );
  rejects(base({ training: { batchSize: 32, earlyStopping: {} } }, false), 'training.earlyStopping.monitor', /watches eval\.loss, but there is no data\.eval/);
  rejects(base({ schedule: { name: 'plateau' } }, false), 'schedule.monitor', /no data\.eval/);
});

test('early stopping and the plateau need evaluations during the run', () => {
  rejects(base({ eval: { every: 0 }, training: { batchSize: 32, earlyStopping: {} } }), 'training.earlyStopping', /eval\.every is 0/, /eval\.every to epoch/);
  rejects(base({ eval: { every: 0 }, schedule: { name: 'plateau' } }), 'schedule', /schedule 'plateau' acts on evaluations during the run/);
  // A best checkpoint of the final evaluation alone is allowed.
  assert.equal(validate(base({ eval: { every: 0 }, checkpoint: { best: {} } })).checkpoint.best?.monitor, 'eval.loss');
});

test('mode follows the monitor: max with accuracy, min with loss; the other is refused', () => {
  rejects(
    base({ checkpoint: { best: { monitor: 'eval.accuracy', mode: 'min' } } }),
    'checkpoint.best.mode',
    /is 'min', but eval\.accuracy improves upward \(mode: max\)/,
    /checkpoint\.best\.mode: max/,
  );
  rejects(
    base({ training: { batchSize: 32, earlyStopping: { monitor: 'eval.loss', mode: 'max' } } }),
    'training.earlyStopping.mode',
    /improves downward \(mode: min\)/,
  );
  rejects(base({ schedule: { name: 'plateau', monitor: 'eval.mae', mode: 'max' } }), 'schedule.mode', /eval\.mae improves downward/);
  rejects(base({ checkpoint: { best: { mode: 'up' } } }), 'checkpoint.best.mode', /expected one of 'min', 'max'/);
});

test('the numbers are checked: factor in (0, 1), counts >= 0, deltas and minLr >= 0', () => {
  rejects(base({ schedule: { name: 'plateau', factor: 1 } }), 'schedule.factor', /expected a number in \(0, 1\), got 1/);
  rejects(base({ schedule: { name: 'plateau', cooldown: -1 } }), 'schedule.cooldown', /expected an integer >= 0/);
  rejects(base({ schedule: { name: 'plateau', minLr: -0.1 } }), 'schedule.minLr', /expected a finite number >= 0/);
  rejects(base({ training: { batchSize: 32, earlyStopping: { patience: 1.5 } } }), 'training.earlyStopping.patience', /expected an integer >= 0/);
  rejects(base({ training: { batchSize: 32, earlyStopping: { minDelta: -1 } } }), 'training.earlyStopping.minDelta', /expected a finite number >= 0/);
  rejects(base({ training: { batchSize: 32, earlyStopping: { restoreBest: 'yes' } } }), 'training.earlyStopping.restoreBest', /expected true or false/);
  rejects(base({ training: { batchSize: 32, earlyStopping: { patient: 3 } } }), 'training.earlyStopping.patient', /unknown key/, /did you mean 'patience'/);
  rejects(base({ schedule: { name: 'cosine', decaySteps: 10, factor: 0.5 } }), 'schedule.factor', /is not used by schedule 'cosine'/, /only plateau use it/);
});
