import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('cli-config');
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
fs.writeFileSync(path.join(dir, 'model.mjs'), 'export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 2 })] });\n');
const good = `model: { module: ./model.mjs }
loss: meanSquaredError
data: { train: { type: mnist, count: 100 } }
training: { batchSize: 8 }
optimizer: { name: sgd }
`;

test('a missing config file exits 2 and names the file', () => {
  const r = runCli(['train', path.join(dir, 'nope.yaml')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_CONFIG: .*nope\.yaml/);
});

test('an unknown key exits 2, names its key path and suggests the right one', () => {
  const file = write('typo.yaml', good.replace('batchSize: 8', 'batchSize: 8, bachSize: 8'));
  const r = runCli(['train', file]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_CONFIG: training\.bachSize/);
  assert.match(r.stderr, /batchSize/);
});

test('a wrong type given with --set exits 2 and names the key path', () => {
  const file = write('good.yaml', good);
  const r = runCli(['train', file, '--set', 'training.batchSize=eight']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_CONFIG: training\.batchSize: expected a positive integer, got "eight" \(string\)/);
});

test('data that does not fit the model exits 2 naming both shapes', () => {
  const file = write('shape.yaml', good);
  const r = runCli(['train', file, '--simulate', '1', '--backend', 'cpu']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_DATA: data\.train: feature rows of .* have shape \[784\] \(784 values\) but the model's input is \[batch, 4\]/);
});
