import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-defaults');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const minimal = (optimizer = 'sgd') => ({
  model: { module: 'model.js' },
  loss: 'categoricalCrossentropy',
  data: { train: { type: 'mnist' } },
  training: { batchSize: 32 },
  optimizer: { name: optimizer },
});

test('a minimal config gets every default', () => {
  const c = validateConfig(minimal(), { configPath: path.join(dir, 'mnist-mlp.yaml'), cwd: '/work' });
  assert.deepEqual(c, {
    name: 'mnist-mlp',
    model: { module: path.join(dir, 'model.js'), json: null, net: null, customLayers: null },
    loss: 'categoricalCrossentropy',
    lossWeights: null,
    data: {
      train: { type: 'mnist', offset: 0, count: 10000, labels: 'onehot' },
      eval: null,
      evalFraction: null,
      classes: null,
      threads: null,
      prefetch: 2,
      onBadSample: 'error',
    },
    training: {
      batchSize: 32,
      epochs: 1,
      steps: null,
      dropLast: false,
      seed: 0,
      accumulateSteps: 1,
      syncBatchNorm: false,
      clipNorm: null,
      ema: null,
      earlyStopping: null,
      classWeights: null,
    },
    optimizer: {
      name: 'sgd',
      learningRate: 0.01,
      momentum: 0,
      nesterov: false,
      beta1: 0.9,
      beta2: 0.999,
      epsilon: 1e-7,
      weightDecay: 0.01,
      decay: 0.9,
      centered: false,
      initialAccumulatorValue: 0.1,
    },
    schedule: {
      name: 'constant',
      decaySteps: 0,
      decayRate: 0.96,
      staircase: false,
      alpha: 0,
      warmupSteps: 0,
      factor: 0.1,
      patience: 10,
      minLr: 0,
      cooldown: 0,
      monitor: 'eval.loss',
      mode: 'min',
      minDelta: 1e-4,
    },
    devices: {
      gpus: 'all',
      simulate: 0,
      backend: 'auto',
      shmDir: '/dev/shm',
      replaceWasmKernels: true,
      workersPerGpu: 1,
      allowSoftwareAdapter: false,
      allowUnpinned: false,
      oversubscribe: false,
    },
    log: { every: 10 },
    eval: { every: 0, batchSize: null, topK: 5, useEma: false },
    metrics: null,
    checkpoint: { every: 0, keep: 3, best: null },
    reliability: {
      onWorkerFailure: 'restart',
      maxRestarts: 3,
      stepTimeout: 600,
      startTimeout: null,
      stallFactor: 10,
      stallMinSeconds: 10,
      onNonFinite: 'stop',
      maxSkippedFraction: 0.5,
    },
    runDir: '/work/runs/mnist-mlp',
    configPath: path.join(dir, 'mnist-mlp.yaml'),
  });
});

test('optimizer defaults depend on optimizer.name', () => {
  const expected = {
    sgd: { learningRate: 0.01, momentum: 0 },
    momentum: { learningRate: 0.01, momentum: 0.9 },
    adagrad: { learningRate: 0.01, momentum: 0 },
    adam: { learningRate: 0.001, momentum: 0 },
    adamw: { learningRate: 0.001, momentum: 0 },
    rmsprop: { learningRate: 0.001, momentum: 0 },
  };
  for (const [name, want] of Object.entries(expected)) {
    const { learningRate, momentum } = validateConfig(minimal(name), { configPath: null, cwd: dir }).optimizer;
    assert.deepEqual({ learningRate, momentum }, want, name);
  }
});

test('without a config file the name is "run" and runDir is runs/run under cwd', () => {
  const c = validateConfig(minimal(), { configPath: null, cwd: dir });
  assert.equal(c.name, 'run');
  assert.equal(c.runDir, path.join(dir, 'runs', 'run'));
  assert.equal(c.configPath, null);
});

test('steps alone leaves epochs null', () => {
  const c = validateConfig({ ...minimal(), training: { batchSize: 8, steps: 100 } }, { configPath: null, cwd: dir });
  assert.equal(c.training.epochs, null);
  assert.equal(c.training.steps, 100);
});
