// A JSON config that gives one key twice is refused with its key path and both lines, as YAML
// refuses it; JSON.parse alone would keep the last value without a word.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-json-dup');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

test('a key given twice in a JSON config names its key path and both lines', async () => {
  const cases = [
    ['top.json', '{\n  "loss": "meanSquaredError",\n  "model": { "module": "model.js" },\n  "loss": "binaryCrossentropy"\n}', 'loss', 4, 2],
    [
      'nested.json',
      '{\n  "model": { "module": "model.js" },\n  "loss": "meanSquaredError",\n  "data": { "train": { "type": "mnist",\n    "count": 10, "type": "npy" } }\n}',
      'data.train.type',
      5,
      4,
    ],
    ['list.json', '{"metrics": [{"name": "accuracy"}, {"name": "auc",\n "name": "f1"}]}', 'metrics[1].name', 2, 1],
  ] as const;
  for (const [name, text, keyPath, line, firstLine] of cases) {
    const file = write(name, text);
    await assert.rejects(loadConfig(file, [], dir), (err: Error & { code?: string; keyPath?: string; hint?: string }) => {
      assert.equal(err.code, 'E_CONFIG');
      assert.equal(err.keyPath, keyPath);
      assert.equal(err.message, `${keyPath}: ${file}:${line}: this key is given twice (first on line ${firstLine})`);
      assert.match(err.hint ?? '', /keep one of the two/);
      return true;
    });
  }
});

test('equal keys in different objects, and a key that only looks the same in a string, are not duplicates', async () => {
  const module = 'm", "model": "x.js';
  write(module, 'export default () => null;\n');
  const text = JSON.stringify(
    {
      model: { module },
      loss: 'meanSquaredError',
      data: { train: { type: 'mnist', count: 10 }, eval: { type: 'mnist', count: 10 } },
      training: { batchSize: 4 },
      optimizer: { name: 'sgd', learningRate: 0.1 },
    },
    null,
    2,
  );
  const config = await loadConfig(write('ok.json', text), [], dir);
  assert.equal(config.model.module, path.join(dir, module));
});
