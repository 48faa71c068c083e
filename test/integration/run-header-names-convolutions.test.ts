// The run header says what computes the wasm backend's convolutions: the C addon on oneDNN where
// it has it, else (or with MGPU_CONV_LIBRARY=own) with the micro-kernel in use, or
// (MGPU_NATIVE_CONV=0, or no addon) XNNPACK and the JavaScript gradients with the reason; on
// another backend it says nothing of them.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { nativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { writeConfigFile } from '../helpers/chaos.ts';
import { nativeSkip } from '../helpers/native.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('header-convolutions');
const data = writeDataset(dir, 'all', 8, 'index', 3);
const skip = nativeSkip(nativeConv().addon ? false : `the convolution addon is not in use: ${nativeConv().reason}`);

function header(name: string, backend: string, env: NodeJS.ProcessEnv = {}): string[] {
  const file = writeConfigFile(dir, name, {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'npy', features: data.features, labels: data.labels } },
    training: { batchSize: 8, steps: 1 },
    optimizer: { name: 'sgd' },
    runDir: path.join(dir, name),
  });
  const r = runCli(['train', file, '--simulate', '1', '--backend', backend], { env: { ...process.env, ...env } });
  assert.equal(r.code, 0, r.stderr);
  return (r.stdout + r.stderr).split('\n').filter((l) => l.trimStart().startsWith('convolution '));
}

test('on wasm with the addon: "convolution in C on oneDNN <version> (...)" where it has oneDNN, else "in C (<micro-kernel> micro-kernel)"', { skip }, () => {
  const { addon } = nativeConv();
  const version = addon!.onednnVersion();
  const words = version ? `in C on ${version} (the ${addon!.isa()} micro-kernel for what it declines)` : `in C (${addon!.isa()} micro-kernel)`;
  assert.deepEqual(header('native', 'wasm'), [`  convolution ${words}`]);
});

test('on wasm with MGPU_CONV_LIBRARY=own: "convolution in C (<micro-kernel> micro-kernel)"', { skip }, () => {
  assert.deepEqual(header('own', 'wasm', { MGPU_CONV_LIBRARY: 'own' }), [`  convolution in C (${nativeConv().addon!.isa()} micro-kernel)`]);
});

test('on wasm with MGPU_NATIVE_CONV=0: XNNPACK and the JavaScript gradients, and why', () => {
  assert.deepEqual(header('off', 'wasm', { MGPU_NATIVE_CONV: '0' }), [
    '  convolution XNNPACK forward, JavaScript im2col gradients (MGPU_NATIVE_CONV=0 turns the native convolutions off)',
  ]);
});

test('on the cpu backend: no convolution line', () => {
  assert.deepEqual(header('cpu', 'cpu'), []);
});
