import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig, serializeConfig } from '../../src/config/load.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-serialize');
for (const f of ['model.js', 'model.json', 'x.npy', 'y.npy', 'ex.npy', 'ey.npy', 'metric.mjs']) fs.writeFileSync(path.join(dir, f), '');

const configs: Record<string, string> = {
  'minimal.yaml':
    'model: { module: model.js }\nloss: categoricalCrossentropy\ndata: { train: { type: mnist } }\ntraining: { batchSize: 32 }\noptimizer: { name: sgd }\n',
  'full.yaml': `
name: "007"
model: { json: model.json }
loss: sparseCategoricalCrossentropy
data:
  train: { type: npy, features: x.npy, labels: y.npy }
  eval: { type: mnist, offset: 9000, labels: index }
training: { batchSize: 128, steps: 2000, dropLast: true, seed: 7 }
optimizer: { name: adamw, learningRate: 0.1e-2, weightDecay: 0.05, epsilon: 1e-8 }
schedule: { name: cosine, decaySteps: 2000, alpha: 0.1, warmupSteps: 100 }
devices: { simulate: 2, backend: cpu, shmDir: shm }
log: { every: 1 }
eval: { every: 500, batchSize: 1000 }
metrics: [accuracy, { name: f1, average: micro }, precision, auc, { module: metric.mjs }]
runDir: out/full
`,
  'rms.json': JSON.stringify({
    model: { module: 'model.js' },
    loss: 'meanSquaredError',
    data: { train: { type: 'npy', features: 'x.npy', labels: 'y.npy' }, eval: { type: 'npy', features: 'ex.npy', labels: 'ey.npy' } },
    training: { batchSize: 10, epochs: 3 },
    optimizer: { name: 'rmsprop', momentum: 0.5, centered: true },
    schedule: { name: 'exponential', decaySteps: 10, staircase: true },
    devices: { gpus: [1, 0] },
  }),
};

for (const [name, text] of Object.entries(configs)) {
  test(`${name}: serialize then validate gives the same config`, async () => {
    fs.writeFileSync(path.join(dir, name), text);
    const c = await loadConfig(path.join(dir, name), [], dir);
    const yaml = serializeConfig(c);
    assert.match(yaml, new RegExp(`^# resolved from .*${name.replace('.', '\\.')}\\n`));
    // From anywhere else: every path in the text is already absolute.
    assert.deepEqual(validateConfig(parse(yaml), { configPath: c.configPath, cwd: os.tmpdir() }), c);
  });
}

test('keys the chosen optimizer and schedule do not use are left out', async () => {
  const c = await loadConfig(path.join(dir, 'minimal.yaml'), [], dir);
  const out = parse(serializeConfig(c));
  assert.deepEqual(out.optimizer, { name: 'sgd', learningRate: 0.01 });
  assert.deepEqual(out.schedule, { name: 'constant', warmupSteps: 0 });
  assert.equal(out.model.json, undefined);
  assert.equal(out.configPath, undefined);
});
