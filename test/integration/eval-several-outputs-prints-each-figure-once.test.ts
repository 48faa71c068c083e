// `mgpu-train eval` of a model with two outputs and `metrics: [accuracy, mae, rmse]`: each
// output's own figures (accuracy.class, mae.class, mae.box) and the config's metrics of the same
// name are one figure, printed once; the metrics an output does not report itself (rmse.class,
// rmse.box) follow.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { evaluate, type ConfigInput } from '../../src/api.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

test("eval prints each output's figure once, also when metrics: names it", async () => {
  const dir = tempDir('eval-outputs-once');
  const raw = {
    name: 'eval-outputs-once',
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    data: { train: { type: 'npy', ...writeTwoIoData(dir, 'train', 12, 1) }, eval: { type: 'npy', ...writeTwoIoData(dir, 'eval', 9, 2) } },
    training: { batchSize: 4, steps: 2, seed: 1 },
    metrics: ['accuracy', 'mae', 'rmse'],
    optimizer: { name: 'sgd' },
    devices: { simulate: 2, backend: 'cpu' },
  };
  const cfg = buildConfig(dir, raw, 2);
  const trained = await train(cfg, silent);
  const lines: string[] = [];
  await evaluate({ ...raw, runDir: cfg.runDir } as ConfigInput, {
    checkpoint: path.dirname(trained.modelPath!),
    cwd: dir,
    print: (l: string) => void lines.push(l),
  });
  const labels = lines.filter((l) => l.startsWith('  ')).map((l) => l.trim().split(/\s+/)[0]);
  assert.deepEqual(labels, ['samples', 'loss', 'loss.class', 'accuracy.class', 'mae.class', 'loss.box', 'mae.box', 'rmse.class', 'rmse.box']);
});
