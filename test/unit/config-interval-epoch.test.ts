// eval.every and checkpoint.every take a step count, `epoch` or { epochs: k } ('epoch' resolves
// to { epochs: 1 }); with an eval set, eval.every defaults to every epoch (Keras's
// validation_data), without one to 0. Anything else is refused naming the key path.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-interval-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const base = (over: Raw = {}, evalSet = true): Raw =>
  minimalConfig({ data: { train: { type: 'mnist', count: 900 }, ...(evalSet ? { evalFraction: 0.1 } : {}) }, ...over });
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });

test('eval.every defaults to every epoch with an eval set, and to 0 without one', () => {
  assert.deepEqual(validate(base()).eval.every, { epochs: 1 });
  assert.equal(validate(base({}, false)).eval.every, 0);
  assert.equal(validate(base({}, false)).checkpoint.every, 0);
});

test("'epoch', { epochs: k } and step counts are accepted, 'epoch' as { epochs: 1 }", () => {
  assert.deepEqual(validate(base({ eval: { every: 'epoch' }, checkpoint: { every: 'epoch' } })).checkpoint.every, { epochs: 1 });
  assert.deepEqual(validate(base({ eval: { every: 'epoch' } })).eval.every, { epochs: 1 });
  assert.deepEqual(validate(base({ eval: { every: { epochs: 3 } }, checkpoint: { every: { epochs: 2 } } })).checkpoint.every, { epochs: 2 });
  assert.equal(validate(base({ eval: { every: 25 }, checkpoint: { every: 0 } })).eval.every, 25);
});

test('anything else is refused naming the key path', () => {
  rejects(base({ eval: { every: 'epochs' } }), 'eval.every', /expected a step count \(an integer >= 0\), 'epoch', or \{ epochs: k \}, got "epochs"/);
  rejects(base({ checkpoint: { every: -1 } }), 'checkpoint.every', /expected a step count/);
  rejects(base({ checkpoint: { every: { epochs: 0 } } }), 'checkpoint.every.epochs', /expected a positive integer, got 0/);
  rejects(base({ checkpoint: { every: { epoch: 2 } } }), 'checkpoint.every.epoch', /unknown key/);
  rejects(base({ eval: { every: {} } }), 'eval.every.epochs', /missing/);
  rejects(base({ eval: { every: 'epoch' } }, false), 'eval.every', /no data\.eval/);
});

test('an interval is due at multiples of its steps, or at the end of every k-th epoch', () => {
  const plan = new BatchPlan(44, 8, 1, false, { epochs: 4, steps: null }); // 6 steps an epoch (the last one short)
  const due = (every: Parameters<BatchPlan['due']>[0]) => Array.from({ length: 25 }, (_, c) => c).filter((c) => plan.due(every, c));
  assert.deepEqual(due({ epochs: 1 }), [6, 12, 18, 24]);
  assert.deepEqual(due({ epochs: 2 }), [12, 24]);
  assert.deepEqual(due(5), [5, 10, 15, 20]);
  assert.deepEqual(due(0), []);
  const dropped = new BatchPlan(44, 8, 1, true, { epochs: 2, steps: null }); // dropLast: 5 steps an epoch
  assert.ok(dropped.due({ epochs: 1 }, 5) && !dropped.due({ epochs: 1 }, 6));
});
