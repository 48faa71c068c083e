// data.eval.augment is refused (E_CONFIG at data.eval.augment), not validated and ignored: an
// evaluation reads its images as they are. data.train.augment and an eval split without augment
// (or with augment: null) are accepted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configChecks, minimalConfig } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-eval-augment-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
fs.mkdirSync(path.join(dir, 'photos'));
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });

const images = (more: Record<string, unknown> = {}) => ({ type: 'images', dir: './photos', size: [8, 8], ...more });
const withEval = (evalSplit: Record<string, unknown>) =>
  minimalConfig({ loss: 'sparseCategoricalCrossentropy', data: { train: images({ augment: { flip: 'horizontal' } }), eval: evalSplit } });

test('data.eval.augment is refused, naming the key path, with a hint to put it under data.train', () => {
  rejects(
    withEval(images({ augment: { flip: 'horizontal' } })),
    'data.eval.augment',
    /data\.eval is never augmented/,
    /augmentation is for training.*data\.train\.augment/,
  );
  rejects(withEval(images({ augment: {} })), 'data.eval.augment', /never augmented/);
});

test('an eval split without augment, or with augment: null, is accepted; data.train.augment is kept', () => {
  const c = validate(withEval(images()));
  assert.equal(c.data.train.type === 'images' && c.data.train.augment?.flip, 'horizontal');
  assert.equal(c.data.eval?.type === 'images' && c.data.eval.augment, null);
  assert.equal(validate(withEval(images({ augment: null }))).data.eval?.type, 'images');
});
