// A network by name without model.inputShape takes the image source's size and channels (its
// standard input, 224x224x3, could never be filled by 40x40 grey images); a size below the
// network's smallest is refused at data.train.size with a hint naming model.inputShape.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-net-input-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'images', 'cat'), { recursive: true });

const config = (model: Record<string, unknown>, size: number[], channels: number) =>
  validateConfig(
    {
      model,
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'images', dir: 'images', size, channels } },
      training: { batchSize: 4 },
      optimizer: { name: 'sgd' },
    },
    { configPath: null, cwd: dir },
  );

test("model.inputShape left out: the images' size and channels", () => {
  assert.deepEqual(config({ net: 'resnet18', classes: 3 }, [40, 48], 1).model.net!.inputShape, [40, 48, 1]);
  assert.deepEqual(config({ net: 'mobilenet-v2', classes: 3 }, [64, 64], 3).model.net!.inputShape, [64, 64, 3]);
});

test('model.inputShape given: it', () => {
  assert.deepEqual(config({ net: 'resnet18', classes: 3, inputShape: [32, 32, 3] }, [40, 40], 3).model.net!.inputShape, [32, 32, 3]);
});

test("images below the network's smallest: E_CONFIG at data.train.size, naming model.inputShape", () => {
  assert.throws(() => config({ net: 'resnet18', classes: 3 }, [16, 16], 3), {
    code: 'E_CONFIG',
    keyPath: 'data.train.size',
    message: /16x16 is below resnet18's smallest input, 32x32/,
    hint: /model\.inputShape/,
  });
});
