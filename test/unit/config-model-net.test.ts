// model.net names a network of the table, with its options checked before anything starts: a
// mistyped name gets the nearest, an input below the network's smallest, an option the network
// does not have, a network option beside model.module, and no classes where the data names none
// are each an E_CONFIG at their key path; a resolved config writes back to the same network.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configToRaw } from '../../src/config/load.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-net-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'images', 'cat'), { recursive: true });
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const npy = { type: 'mnist' };
const images = { type: 'images', dir: 'images', size: [32, 32] };
const withModel =
  (model: Record<string, unknown>, train: unknown = npy) =>
  () =>
    validateConfig(
      { model, loss: 'categoricalCrossentropy', data: { train }, training: { batchSize: 4 }, optimizer: { name: 'sgd' } },
      { configPath: null, cwd: dir },
    );

test('a mistyped network gets the nearest name', () => {
  assert.throws(withModel({ net: 'resnet-18', classes: 10 }), { code: 'E_CONFIG', keyPath: 'model.net', hint: /did you mean 'resnet18'\?/ });
  assert.throws(withModel({ net: 'mobilenetv2', classes: 10 }), { keyPath: 'model.net', hint: /did you mean 'mobilenet-v2'\?/ });
  assert.throws(withModel({ net: 'transformer', classes: 10 }), { keyPath: 'model.net', message: /expected one of 'resnet18', .*'lenet'/ });
});

test("an input below the network's smallest is refused at model.inputShape", () => {
  assert.throws(withModel({ net: 'resnet18', classes: 10, inputShape: [16, 16, 3] }), {
    code: 'E_CONFIG',
    keyPath: 'model.inputShape',
    message: /16x16 is below resnet18's smallest input, 32x32/,
    hint: /or use resnet18-cifar for small images/,
  });
  assert.throws(withModel({ net: 'lenet', classes: 10, inputShape: [28, 28] }), { keyPath: 'model.inputShape', message: /\[height, width, channels\]/ });
  assert.deepEqual(withModel({ net: 'resnet18-cifar', classes: 10, inputShape: [8, 8, 1] })().model.net?.inputShape, [8, 8, 1]);
});

test('dropout and width only where the network has them; network options only with model.net', () => {
  assert.throws(withModel({ net: 'resnet50', classes: 10, dropout: 0.3 }), {
    keyPath: 'model.dropout',
    message: /resnet50 has no dropout/,
    hint: /mobilenet-v2, vgg16, efficientnet-b0/,
  });
  assert.throws(withModel({ net: 'vgg16', classes: 10, width: 0.5 }), { keyPath: 'model.width', hint: /only mobilenet-v2 take/ });
  assert.throws(withModel({ net: 'vgg16', classes: 10, dropout: 1 }), { keyPath: 'model.dropout', message: /in \[0, 1\)/ });
  assert.throws(withModel({ module: 'model.js', classes: 10 }), {
    keyPath: 'model.classes',
    message: /an option of a network by name, but the model is model\.module/,
  });
  assert.throws(withModel({ net: 'lenet', classes: 10, weightDecay: -1 }), { keyPath: 'model.weightDecay' });
});

test("classes: required where the data names none, the run's count where it does", () => {
  assert.throws(withModel({ net: 'lenet' }), {
    code: 'E_CONFIG',
    keyPath: 'model.classes',
    message: /data\.train \(type mnist\) does not name its classes/,
    hint: /classes: 10/,
  });
  assert.equal(withModel({ net: 'resnet18-cifar' }, images)().model.net?.classes, null);
  assert.throws(withModel({ net: 'lenet', classes: 1 }), { keyPath: 'model.classes', message: /an integer >= 2/ });
});

test('defaults, and a resolved config validates back to the same network', () => {
  const cfg = withModel({ net: 'mobilenet-v2', classes: 5, width: 0.75, weightDecay: 4e-5 })();
  assert.deepEqual(cfg.model.net, { name: 'mobilenet-v2', classes: 5, inputShape: [224, 224, 3], weightDecay: 4e-5, dropout: null, width: 0.75 });
  assert.deepEqual(validateConfig(configToRaw(cfg), { configPath: null, cwd: dir }).model, cfg.model);
  const lenet = withModel({ net: 'lenet' }, images)();
  assert.deepEqual(validateConfig(configToRaw(lenet), { configPath: null, cwd: dir }).model, lenet.model);
});
