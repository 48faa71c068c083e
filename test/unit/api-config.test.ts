// The library API takes the config file's schema as an object: the same validation, the same
// key-path errors, the same defaults; and its own mistakes (an unknown option, bad predict
// input) are E_USAGE errors found before any worker starts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { ConfigError, MgpuError, evaluate, loadConfig, predict, train, validateConfig, type ConfigInput } from '../../src/api.ts';
import { validateConfig as validateInternal } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-api-config-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const base = (): ConfigInput => ({
  name: 'api',
  model: { module: 'model.js' },
  loss: 'categoricalCrossentropy',
  data: { train: { type: 'mnist', count: 100 } },
  training: { batchSize: 32 },
  optimizer: { name: 'adam' },
  devices: { simulate: 1, backend: 'cpu' },
});

/** What a promise or a function threw. */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('nothing was thrown');
}

test('an object validates as the same YAML file does: defaults, paths against cwd, set overrides', async () => {
  const cfg = validateConfig(base(), { cwd: dir, set: ['optimizer.learningRate=0.5'] });
  assert.deepEqual(cfg, validateInternal({ ...base(), optimizer: { name: 'adam', learningRate: 0.5 } }, { configPath: null, cwd: dir }));
  assert.equal(cfg.model.module, path.join(dir, 'model.js'));
  assert.equal(cfg.runDir, path.join(dir, 'runs', 'api'));
  const file = path.join(dir, 'api.yaml');
  fs.writeFileSync(file, stringify(base()));
  // The default runs/<name> is under the working directory, for a file as for an object.
  const fromFile = await loadConfig('api.yaml', { set: ['optimizer.learningRate=0.5'], cwd: dir });
  assert.equal(fromFile.configPath, file);
  assert.deepEqual({ ...fromFile, configPath: null }, cfg);
});

test('a bad key is a ConfigError naming its key path, with the message the file gets', async () => {
  const bad = { ...base(), optimizer: { name: 'adam', learningRate: 'fast' } } as unknown as ConfigInput;
  const file = path.join(dir, 'bad.yaml');
  fs.writeFileSync(file, stringify(bad));
  const fromFile = await thrown(() => loadConfig(file));
  for (const err of [await thrown(() => validateConfig(bad, { cwd: dir })), await thrown(() => train(bad, { cwd: dir, print: false }))]) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.code, 'E_CONFIG');
    assert.equal(err.keyPath, 'optimizer.learningRate');
    assert.equal(err.message, 'optimizer.learningRate: expected a finite number > 0, got "fast" (string)');
    assert.equal(err.message, (fromFile as Error).message);
  }
  const typo = await thrown(() => validateConfig({ ...base(), trainig: {} } as unknown as ConfigInput));
  assert.ok(typo instanceof ConfigError);
  assert.equal(typo.keyPath, 'trainig');
  assert.match(typo.hint!, /did you mean 'training'\?/);
});

test('a Config from loadConfig or validateConfig is taken as it is, and a changed copy is checked again', async () => {
  const cfg = validateConfig(base(), { cwd: dir });
  const changed = { ...cfg, training: { ...cfg.training, batchSize: 0 } };
  const err = await thrown(() => train(changed, { print: false }));
  assert.ok(err instanceof ConfigError, String(err));
  assert.equal(err.keyPath, 'training.batchSize');
  const notWhole = await thrown(() => train({ configPath: null } as never, { print: false }));
  assert.ok(notWhole instanceof ConfigError);
  assert.equal(notWhole.keyPath, 'configPath');
  const notObject = await thrown(() => train(42 as never, { print: false }));
  assert.ok(notObject instanceof ConfigError);
  assert.match(notObject.message, /^expected a config object .*, got number$/);
});

test('an unknown option or a bad predict input is E_USAGE, before any worker starts', async () => {
  const cfg = validateConfig(base(), { cwd: dir });
  const typo = await thrown(() => train(cfg, { onStepend: () => {} } as never));
  assert.ok(typo instanceof MgpuError);
  assert.equal(typo.code, 'E_USAGE');
  assert.equal(typo.message, 'train(): unknown option onStepend');
  assert.match(typo.hint!, /^did you mean onStepEnd\? the options are /);
  const evalTypo = await thrown(() => evaluate(cfg, { checkpoint: dir, emma: true } as never));
  assert.equal((evalTypo as MgpuError).message, 'evaluate(): unknown option emma');
  const shape = await thrown(() => predict(cfg, { checkpoint: dir, input: { data: new Float32Array(6), shape: [4, 784] } }));
  assert.ok(shape instanceof MgpuError);
  assert.equal(shape.code, 'E_USAGE');
  assert.equal(shape.message, 'predict(): input .shape [4, 784] holds 3136 values, .data 6');
  const list = await thrown(() => predict(cfg, { checkpoint: dir, input: { data: [1, 2] as never, shape: [2] } }));
  assert.equal((list as MgpuError).message, 'predict(): input .data is not a Float32Array, Int32Array or Uint8Array');
  const npyDir = path.join(dir, 'a-dir.npy');
  fs.mkdirSync(npyDir, { recursive: true });
  const output = await thrown(() => predict(cfg, { checkpoint: dir, input: { data: new Float32Array(784), shape: [1, 784] }, output: npyDir }));
  assert.equal((output as MgpuError).message, `predict(): output ${npyDir}: is a directory`);
  const resumeOnly = await thrown(() => train(cfg, { allowChanged: ['optimizer'], print: false }));
  assert.equal((resumeOnly as MgpuError).message, 'train(): allowChanged applies to resume only');
});
