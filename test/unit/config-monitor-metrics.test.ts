// A monitor (checkpoint.best, training.earlyStopping, the plateau schedule) may name any value
// the config's `metrics:` puts on the eval line, as that line names it: eval.f1_macro,
// eval.precision_micro, eval.auc, eval.rmse, eval.<name>.<key> of a custom metric. Its mode
// defaults to the metric's direction (max for scores, min for errors); a custom value needs an
// explicit mode; a monitor naming a value the config does not compute is E_CONFIG listing what
// can be monitored.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-monitor-metrics-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.js', 'hits.mjs']) fs.writeFileSync(path.join(dir, f), 'export default () => null;\n');
const METRICS = ['accuracy', 'f1', { name: 'precision', average: 'micro' }, 'auc', 'rmse', { module: './hits.mjs', name: 'mine' }];
const base = (over: Raw = {}): Raw =>
  minimalConfig({ data: { train: { type: 'mnist', count: 900 }, evalFraction: 0.1 }, optimizer: { name: 'sgd' }, metrics: METRICS, ...over });
const { validate, rejects } = configChecks({ configPath: path.join(dir, 'exp.yaml'), cwd: dir });

test('each metric of the config can be monitored, with the mode of its direction', () => {
  const modeOf = (monitor: string, mode?: string) => validate(base({ checkpoint: { best: { monitor, ...(mode ? { mode } : {}) } } })).checkpoint.best?.mode;
  assert.equal(modeOf('eval.f1_macro'), 'max');
  assert.equal(modeOf('eval.precision_micro'), 'max');
  assert.equal(modeOf('eval.auc'), 'max');
  assert.equal(modeOf('eval.rmse'), 'min');
  assert.equal(modeOf('eval.loss'), 'min');
  assert.equal(modeOf('eval.mine.hits', 'max'), 'max');
  assert.equal(modeOf('eval.mine.misses', 'min'), 'min');
  const c = validate(base({ training: { batchSize: 32, earlyStopping: { monitor: 'eval.auc' } }, schedule: { name: 'plateau', monitor: 'eval.rmse' } }));
  assert.equal(c.training.earlyStopping?.mode, 'max');
  assert.equal(c.schedule.mode, 'min');
});

test("a mode against the metric's direction, and a custom value without a mode, are refused", () => {
  rejects(
    base({ checkpoint: { best: { monitor: 'eval.f1_macro', mode: 'min' } } }),
    'checkpoint.best.mode',
    /is 'min', but eval\.f1_macro improves upward \(mode: max\)/,
    /checkpoint\.best\.mode: max/,
  );
  rejects(base({ schedule: { name: 'plateau', monitor: 'eval.rmse', mode: 'max' } }), 'schedule.mode', /eval\.rmse improves downward/, /schedule\.mode: min/);
  rejects(
    base({ training: { batchSize: 32, earlyStopping: { monitor: 'eval.mine.hits' } } }),
    'training.earlyStopping.mode',
    /missing: eval\.mine\.hits is a custom metric's value, whose direction mgpu-train cannot know/,
    /set training\.earlyStopping\.mode: max \(higher is better\) or min/,
  );
});

test('a monitor naming a value the config does not compute lists what can be monitored', () => {
  const list = "'eval.loss', 'eval.accuracy', 'eval.top_k', 'eval.mae', 'eval.f1_macro', 'eval.precision_micro', 'eval.auc', 'eval.rmse', 'eval.mine.<key>'";
  rejects(
    base({ checkpoint: { best: { monitor: 'eval.recall_macro' } } }),
    'checkpoint.best.monitor',
    new RegExp(`expected one of ${list.replace(/[.<>]/g, '\\$&')}, got "eval\\.recall_macro"`),
    /add the metric to metrics: to watch it/,
  );
  rejects(base({ checkpoint: { best: { monitor: 'eval.f1' } } }), 'checkpoint.best.monitor', /got "eval\.f1"/, /did you mean eval\.f1_macro\?/);
  rejects(base({ checkpoint: { best: { monitor: 'eval.other.hits', mode: 'max' } } }), 'checkpoint.best.monitor', /got "eval\.other\.hits"/, /./);
  rejects(base({ checkpoint: { best: { monitor: 'eval.mine.', mode: 'max' } } }), 'checkpoint.best.monitor', /got "eval\.mine\."/, /./);
  // Without metrics: only the eval line's own four.
  rejects(
    base({ metrics: null, checkpoint: { best: { monitor: 'eval.auc' } } }),
    'checkpoint.best.monitor',
    /expected one of 'eval\.loss', 'eval\.accuracy', 'eval\.top_k', 'eval\.mae', got "eval\.auc"/,
    /add the metric to metrics:/,
  );
});
