// `mgpu-train nets` lists every network model.net names, with its trainable parameters at its
// standard input and classes (the models tfjs builds), its standard and smallest inputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NET_NAMES } from '../../src/nets/nets-table.ts';
import { runCli } from '../helpers/run-cli.ts';

test('nets lists every network with its parameters and inputs', () => {
  const r = runCli(['nets']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^network +parameters +classes +input +smallest$/m);
  assert.match(r.stdout, /^resnet50 +25,557,032 +1000 +224x224x3 +32x32 +ResNet-50/m);
  assert.match(r.stdout, /^resnet18-cifar +11,173,962 +10 +32x32x3 +8x8 /m);
  assert.match(r.stdout, /^vgg16 +138,357,544 +1000 +224x224x3 /m);
  assert.match(r.stdout, /^lenet +61,706 +10 +28x28x1 +12x12 /m);
  for (const name of NET_NAMES) assert.match(r.stdout, new RegExp(`^${name} `, 'm'));
});

test('a mistyped command near nets suggests it', () => {
  const r = runCli(['nest']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "nest": did you mean nets\?/);
});
