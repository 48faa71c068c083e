import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { applyOverrides } from '../../src/config/overrides.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('values are read as YAML, so they come out typed', () => {
  const out = applyOverrides({}, ['a=3', 'b=1e-3', 'c=true', 'd=[0,1]', 'e=adam', 'f=null', 'g={x: 1}', 'h="3"']);
  assert.deepEqual(out, { a: 3, b: 0.001, c: true, d: [0, 1], e: 'adam', f: null, g: { x: 1 }, h: '3' });
});

test('nested keys are created, existing siblings kept, and the input is not changed', () => {
  const raw = { optimizer: { name: 'sgd' } };
  const out = applyOverrides(raw, ['optimizer.learningRate=0.5', 'schedule.name=cosine', 'a.b.c=x=y']);
  assert.deepEqual(out, { optimizer: { name: 'sgd', learningRate: 0.5 }, schedule: { name: 'cosine' }, a: { b: { c: 'x=y' } } });
  assert.deepEqual(raw, { optimizer: { name: 'sgd' } });
});

test('a malformed --set names the --set text', () => {
  for (const set of ['training.batchSize', '=3', 'a..b=1', '.a=1', 'a.=1']) {
    assert.throws(() => applyOverrides({}, [set]), {
      code: 'E_CONFIG',
      keyPath: '--set',
      message: new RegExp(`malformed override ${JSON.stringify(set).replace(/[.]/g, '\\.')}`),
    });
  }
  assert.throws(() => applyOverrides({}, ['devices.gpus=[0,1']), {
    keyPath: 'devices.gpus',
    message: /--set "devices\.gpus=\[0,1": the value is not valid YAML/,
  });
  assert.throws(() => applyOverrides({ loss: 'meanSquaredError' }, ['loss.x=1']), {
    keyPath: 'loss',
    message: /sets a key inside it, but it is "meanSquaredError" \(string\)/,
  });
});

test('an override cannot reach the prototype', () => {
  const out = applyOverrides({}, ['__proto__.polluted=1']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.keys(out), ['__proto__']);
});

test('overrides are validated like the file: typed values land, unknown keys fail with their path', async () => {
  const dir = tempDir('config-overrides');
  fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
  fs.writeFileSync(
    path.join(dir, 'exp.yaml'),
    [
      'model: { module: model.js }',
      'loss: categoricalCrossentropy',
      'data: { train: { type: mnist } }',
      'training: { batchSize: 32 }',
      'optimizer: { name: sgd }',
    ].join('\n'),
  );
  const file = path.join(dir, 'exp.yaml');
  const c = await loadConfig(file, ['optimizer.name=adam', 'optimizer.beta2=0.99', 'devices.gpus=[0,1]', 'training.steps=500'], dir);
  assert.deepEqual([c.optimizer.name, c.optimizer.learningRate, c.optimizer.beta2], ['adam', 0.001, 0.99]);
  assert.deepEqual(c.devices.gpus, [0, 1]);
  assert.deepEqual([c.training.epochs, c.training.steps], [null, 500]);
  await assert.rejects(loadConfig(file, ['optimizer.learningRat=1'], dir), { code: 'E_CONFIG', keyPath: 'optimizer.learningRat', hint: /learningRate/ });
  await assert.rejects(loadConfig(file, ['training.batchSize=big'], dir), { keyPath: 'training.batchSize', message: /got "big" \(string\)/ });
});
