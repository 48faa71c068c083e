import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// dir/models/net.js, dir/data/{x,y}.npy and a config at dir/configs/exp.yaml pointing at them relatively.
const dir = tempDir('config-paths');
for (const f of ['models/net.js', 'data/x.npy', 'data/y.npy']) {
  fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
  fs.writeFileSync(path.join(dir, f), '');
}
const configPath = path.join(dir, 'configs', 'exp.yaml');
const cwd = path.join(dir, 'elsewhere');
const raw = (train: Record<string, unknown> = { type: 'npy', features: '../data/x.npy', labels: '../data/y.npy' }) => ({
  model: { module: '../models/net.js' },
  loss: 'meanSquaredError',
  data: { train },
  training: { batchSize: 4 },
  optimizer: { name: 'sgd' },
  devices: { shmDir: 'shm' },
});

test('relative paths are resolved against the config file directory', () => {
  const c = validateConfig(raw(), { configPath, cwd });
  assert.equal(c.model.module, path.join(dir, 'models', 'net.js'));
  assert.deepEqual(c.data.train, { type: 'npy', features: path.join(dir, 'data', 'x.npy'), labels: path.join(dir, 'data', 'y.npy'), weights: null });
  assert.equal(c.devices.shmDir, path.join(dir, 'configs', 'shm'));
  assert.equal(c.configPath, configPath);
});

test('a runDir in the config is resolved against the config file directory; the default runs/<name> against cwd', () => {
  assert.equal(validateConfig({ ...raw(), runDir: 'out/a' }, { configPath, cwd }).runDir, path.join(dir, 'configs', 'out', 'a'));
  assert.equal(validateConfig({ ...raw(), runDir: '/abs/run' }, { configPath, cwd }).runDir, '/abs/run');
  assert.equal(validateConfig(raw(), { configPath, cwd }).runDir, path.join(cwd, 'runs', 'exp'));
});

test('without a config file, relative paths are resolved against cwd', () => {
  const c = validateConfig(
    { ...raw({ type: 'npy', features: 'data/x.npy', labels: 'data/y.npy' }), model: { module: 'models/net.js' } },
    { configPath: null, cwd: dir },
  );
  assert.equal(c.model.module, path.join(dir, 'models', 'net.js'));
  assert.equal(c.data.train.type === 'npy' && c.data.train.labels, path.join(dir, 'data', 'y.npy'));
});

test('absolute paths are kept', () => {
  const features = path.join(dir, 'data', 'x.npy');
  const c = validateConfig(raw({ type: 'npy', features, labels: '../data/y.npy' }), { configPath, cwd });
  assert.equal(c.data.train.type === 'npy' && c.data.train.features, features);
});

test('a missing file is reported with its key path and resolved path', () => {
  const missing = path.join(dir, 'data', 'nope.npy');
  assert.throws(() => validateConfig(raw({ type: 'npy', features: '../data/x.npy', labels: '../data/nope.npy' }), { configPath, cwd }), {
    code: 'E_CONFIG',
    keyPath: 'data.train.labels',
    message: new RegExp(`^data\\.train\\.labels: file not found: ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
  });
  assert.throws(() => validateConfig({ ...raw(), model: { json: 'model.json' } }, { configPath, cwd }), {
    keyPath: 'model.json',
    message: new RegExp(`file not found: .*${path.join('configs', 'model.json').replace(/[.\\]/g, '\\$&')}`),
  });
});
