import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig } from '../helpers/config.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-unknown');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const base = () => minimalConfig() as { optimizer: Record<string, unknown> };
const { validate } = configChecks({ configPath: null, cwd: dir });

test('a nested unknown key names its full path and suggests the closest known key', () => {
  const raw = base();
  raw.optimizer.learningRat = 0.1;
  assert.throws(() => validate(raw), {
    code: 'E_CONFIG',
    keyPath: 'optimizer.learningRat',
    message: /^optimizer\.learningRat: unknown key/,
    hint: /did you mean 'learningRate'\?/,
  });
});

test('unknown keys are found at every depth', () => {
  assert.throws(() => validate({ ...base(), trainig: {} }), { keyPath: 'trainig', hint: /did you mean 'training'/ });
  assert.throws(() => validate({ ...base(), data: { train: { type: 'mnist', ofset: 5 } } }), {
    keyPath: 'data.train.ofset',
    hint: /did you mean 'offset'/,
  });
});

test('with nothing close, the hint lists the known keys', () => {
  assert.throws(
    () => validate({ ...base(), devices: { zzzzzzzz: 1 } }),
    (err: Error & { hint?: string }) => {
      assert.match(err.message, /^devices\.zzzzzzzz: unknown key/);
      assert.doesNotMatch(err.hint ?? '', /did you mean/);
      assert.match(err.hint ?? '', /gpus, simulate, backend, shmDir/);
      return true;
    },
  );
});

test('a key the chosen optimizer does not use is rejected, naming the optimizers that do', () => {
  const raw = base();
  raw.optimizer = { name: 'sgd', beta1: 0.8 };
  assert.throws(() => validate(raw), { code: 'E_CONFIG', keyPath: 'optimizer.beta1', message: /not used by optimizer 'sgd'/, hint: /adam, adamw/ });
});

test('configPath is set by the loader, not by the file', () => {
  assert.throws(() => validate({ ...base(), configPath: '/x.yaml' }), { keyPath: 'configPath', message: /set by the loader/ });
});
