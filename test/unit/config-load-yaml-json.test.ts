import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-load');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const YAML = `# a comment
model:
  module: model.js
loss: categoricalCrossentropy
data:
  train: { type: mnist, count: 1000 }
training:
  batchSize: 64
optimizer:
  name: adam
  learningRate: 3e-4
`;
const JSON_TEXT = JSON.stringify({
  model: { module: 'model.js' },
  loss: 'categoricalCrossentropy',
  data: { train: { type: 'mnist', count: 1000 } },
  training: { batchSize: 64 },
  optimizer: { name: 'adam', learningRate: 3e-4 },
});

test('YAML and JSON files give the same config', async () => {
  const fromYaml = await loadConfig(write('exp.yaml', YAML), [], dir);
  const fromYml = await loadConfig(write('exp.yml', YAML), [], dir);
  const fromJson = await loadConfig(write('exp.json', JSON_TEXT), [], dir);
  assert.equal(fromYaml.name, 'exp');
  assert.equal(fromYaml.configPath, path.join(dir, 'exp.yaml'));
  assert.equal(fromYaml.optimizer.learningRate, 3e-4);
  assert.deepEqual({ ...fromYml, configPath: null }, { ...fromYaml, configPath: null });
  assert.deepEqual({ ...fromJson, configPath: null }, { ...fromYaml, configPath: null });
});

test('the path is resolved against the given cwd', async () => {
  write('rel.yaml', YAML);
  assert.equal((await loadConfig('rel.yaml', [], dir)).configPath, path.join(dir, 'rel.yaml'));
});

test('a YAML syntax error names the file, line and column', async () => {
  const file = write('broken.yaml', 'model:\n  module: model.js\ndata: [1,\nloss: x\n');
  await assert.rejects(loadConfig(file, [], dir), { code: 'E_CONFIG', keyPath: '', message: new RegExp(`${escape(file)}:4:1: YAML syntax error`) });
  const dup = write('dup.yaml', 'loss: a\nloss: b\n');
  await assert.rejects(loadConfig(dup, [], dir), { message: new RegExp(`${escape(dup)}:2:1: YAML syntax error: Map keys must be unique`) });
});

test('a JSON syntax error names the file, line and column', async () => {
  const file = write('broken.json', '{\n  "loss": "x",\n  "model" {}\n}');
  await assert.rejects(loadConfig(file, [], dir), { code: 'E_CONFIG', message: new RegExp(`${escape(file)}:3:11: JSON syntax error`) });
});

test('a missing file, another extension, or a top level that is not a mapping are errors naming the file', async () => {
  const missing = path.join(dir, 'nope.yaml');
  await assert.rejects(loadConfig(missing, [], dir), { code: 'E_CONFIG', message: new RegExp(`config file not found: ${escape(missing)}`) });
  const toml = write('exp.toml', 'a = 1');
  await assert.rejects(loadConfig(toml, [], dir), { code: 'E_CONFIG', message: /unsupported extension "\.toml"/, hint: /\.yaml, \.yml, \.json/ });
  for (const [name, text, got] of [
    ['list.yaml', '- 1\n- 2\n', /got \[1,2\] \(list\)/],
    ['empty.yaml', '', /got null/],
    ['num.json', '3', /got 3 \(number\)/],
  ] as const) {
    const file = write(name, text);
    await assert.rejects(loadConfig(file, [], dir), { message: new RegExp(`${escape(file)}: expected a mapping of config keys at the top, ${got.source}`) });
  }
});
