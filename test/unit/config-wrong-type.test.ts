import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { minimalConfig } from '../helpers/config.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-type');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const base = () => minimalConfig();

/** `base()` with `keyPath` set to `value`. */
function withValue(keyPath: string, value: unknown): Record<string, unknown> {
  const raw = base();
  const keys = keyPath.split('.');
  let obj = raw;
  for (const k of keys.slice(0, -1)) obj = (obj[k] ??= {}) as Record<string, unknown>;
  obj[keys[keys.length - 1]!] = value;
  return raw;
}

// [key path to set, value, message]; errors inside a list name the element's path.
const cases: [string, unknown, RegExp, string?][] = [
  ['training.batchSize', '64', /^training\.batchSize: expected a positive integer, got "64" \(string\)$/],
  ['optimizer.learningRate', 'fast', /^optimizer\.learningRate: expected a finite number > 0, got "fast" \(string\)$/],
  ['training.dropLast', 'yes', /^training\.dropLast: expected true or false, got "yes" \(string\)$/],
  ['devices.gpus', '0,1', /^devices\.gpus: expected 'all' or a non-empty list of distinct GPU ids, got "0,1" \(string\)$/],
  ['devices.gpus', [0, '1'], /^devices\.gpus\[1\]: expected a GPU id \(an integer >= 0\), got "1" \(string\)$/, 'devices.gpus[1]'],
  ['loss', 3, /^loss: expected one of 'categoricalCrossentropy', .*, got 3 \(number\)$/],
  ['data.train', 'mnist', /^data\.train: expected a mapping with a type .*, got "mnist" \(string\)$/],
  ['model.module', 5, /^model\.module: expected a non-empty string, got 5 \(number\)$/],
  ['log.every', [1], /^log\.every: expected a positive integer, got \[1\] \(list\)$/],
  ['schedule', 'cosine', /^schedule: expected a mapping, got "cosine" \(string\)$/],
  ['training.epochs', true, /^training\.epochs: expected a positive integer or null, got true \(boolean\)$/],
];

for (const [keyPath, value, message, errorPath = keyPath] of cases) {
  test(`${keyPath} = ${JSON.stringify(value)} names its key path, the expected type and what was found`, () => {
    assert.throws(
      () => validateConfig(withValue(keyPath, value), { configPath: null, cwd: dir }),
      (err: Error & { code?: string; keyPath?: string }) => {
        assert.equal(err.code, 'E_CONFIG');
        assert.equal(err.keyPath, errorPath);
        assert.match(err.message, message);
        return true;
      },
    );
  });
}

test('a missing required key says so and what it expects', () => {
  const raw = base();
  raw.training = {};
  assert.throws(() => validateConfig(raw, { configPath: null, cwd: dir }), { keyPath: 'training.batchSize', message: /missing; expected a positive integer/ });
});

test('the top level must be a mapping', () => {
  assert.throws(() => validateConfig([1, 2], { configPath: null, cwd: dir }), {
    keyPath: '',
    message: /^the config's top level: expected a mapping, got \[1,2\] \(list\)/,
  });
});
