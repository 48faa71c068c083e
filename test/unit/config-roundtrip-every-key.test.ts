// The resolved config written to runs/<name>/config.yaml validates back to the same Config, for
// configs that between them set every key to a value other than its default. The keys checked
// are enumerated from the validated Config itself (every key validation fills in), so a key
// added later and not serialized fails here; the devices section is written whole, so a key
// added there needs no change to pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { serializeConfig } from '../../src/config/load.ts';
import { OPTIMIZER_PARAMS, SCHEDULE_PARAMS, optimizerDefaults, scheduleDefaults } from '../../src/config/defaults.ts';
import { OPTIMIZER_NAMES, SCHEDULE_NAMES } from '../../src/config/types.ts';
import type { Config } from '../../src/config/types.ts';
import { isMapping } from '../../src/config/checker.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-roundtrip-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['base.mjs', 'model.mjs', 'model.json', 'x.npy', 'y.npy', 'w.npy', 'ex.npy', 'ey.npy', 'data.csv', 'samples.mjs', 'layers.mjs'])
  fs.writeFileSync(path.join(dir, f), '');
const configPath = path.join(dir, 'exp.yaml');

/** Every key set, away from its default (the config fuzzer's valid config, completed). */
const withEvalSet = {
  name: 'every-key',
  model: { module: './model.mjs', customLayers: './layers.mjs' },
  loss: 'categoricalCrossentropy',
  data: {
    train: { type: 'npy', features: './x.npy', labels: './y.npy', weights: './w.npy' },
    eval: { type: 'csv', path: './data.csv', label: 'y', labelType: 'float', weight: 'w' },
  },
  training: {
    batchSize: 32,
    epochs: 2,
    dropLast: true,
    seed: 1,
    accumulateSteps: 2,
    clipNorm: 1.5,
    ema: 0.99,
    earlyStopping: { monitor: 'eval.top_k', mode: 'max', patience: 3, minDelta: 0.01, restoreBest: true },
    classWeights: { 0: 2, 3: 0.5 },
  },
  optimizer: { name: 'adam', learningRate: 0.003, beta1: 0.8, beta2: 0.99, epsilon: 1e-6 },
  schedule: { name: 'cosine', decaySteps: 100, alpha: 0.1, warmupSteps: 5 },
  devices: { gpus: [1, 0], backend: 'tfjs-node', shmDir: './shm', replaceWasmKernels: false },
  log: { every: 5 },
  eval: { every: 10, batchSize: 64, topK: 3, useEma: true },
  checkpoint: { every: 20, keep: 2, best: { monitor: 'eval.accuracy', mode: 'max' } },
  reliability: {
    onWorkerFailure: 'reshard',
    maxRestarts: 2,
    stepTimeout: 300,
    startTimeout: 900,
    stallFactor: 4,
    stallMinSeconds: 2,
    onNonFinite: 'skip',
    maxSkippedFraction: 0.25,
  },
  runDir: 'out/every-key',
};
/** The keys the first cannot set with it: steps, simulate, evalFraction, model.json, other sources. */
const withHoldout = {
  model: { json: './model.json' },
  loss: 'sparseCategoricalCrossentropy',
  data: { train: { type: 'mnist', offset: 100, count: 500, labels: 'index' }, evalFraction: 0.2 },
  training: { batchSize: 16, steps: 40 },
  optimizer: { name: 'rmsprop', learningRate: 0.01, decay: 0.8, momentum: 0.5, epsilon: 1e-5, centered: true },
  schedule: { name: 'exponential', decaySteps: 10, decayRate: 0.5, staircase: true, warmupSteps: 3 },
  devices: { simulate: 3, backend: 'wasm' },
};
/** The plateau schedule, and intervals in epochs ('epoch' is written back as { epochs: 1 }). */
const withPlateau = {
  ...withHoldout,
  schedule: { name: 'plateau', factor: 0.5, patience: 2, minLr: 1e-5, cooldown: 1, monitor: 'eval.accuracy', mode: 'max', minDelta: 0.01, warmupSteps: 2 },
  eval: { every: { epochs: 2 } },
  checkpoint: { every: 'epoch', best: { monitor: 'eval.mae' } },
  training: { batchSize: 16, steps: 40, earlyStopping: { patience: 1 } },
};
/** No eval data at all: the eval section is still written, and still validates. */
const withoutEval = {
  model: { module: './model.mjs' },
  loss: 'meanSquaredError',
  data: { train: { type: 'module', module: './samples.mjs' } },
  training: { batchSize: 8, ema: 0.9 },
  optimizer: { name: 'momentum', learningRate: 0.05, momentum: 0.5, nesterov: true },
  eval: { useEma: true, topK: 2 },
  checkpoint: { keep: 1 },
  reliability: { onWorkerFailure: 'abort' },
};
/** Class-name labels: labelType class on both splits, and data.classes. */
const withClasses = {
  ...withHoldout,
  data: {
    train: { type: 'csv', path: './data.csv', label: 'species', labelType: 'class' },
    eval: { type: 'csv', path: './data.csv', label: 'species', labelType: 'class' },
    classes: ['setosa', 'versicolor', 'virginica', 'it\'s, "quoted"', '10'],
  },
  // Monitors on values of metrics: a built-in one (mode from its direction) and a custom one.
  metrics: ['f1', { name: 'recall', average: 'micro' }, { module: './samples.mjs', name: 'mine' }],
  checkpoint: { best: { monitor: 'eval.f1_macro' } },
  training: { batchSize: 16, steps: 40, earlyStopping: { monitor: 'eval.mine.hits', mode: 'min', patience: 2 } },
};
const others = [
  { name: 'adamw', learningRate: 0.002, beta1: 0.7, beta2: 0.9, epsilon: 1e-4, weightDecay: 0.1 },
  { name: 'adagrad', learningRate: 0.2, initialAccumulatorValue: 0.5, epsilon: 1e-3 },
  { name: 'sgd', learningRate: 0.5 },
].map((optimizer) => ({ ...withoutEval, optimizer, schedule: { name: 'constant', warmupSteps: 7 } }));
/** Several inputs and outputs: files by name, a loss and a weight per output. */
const withOutputs = {
  model: { module: './model.mjs' },
  loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
  lossWeights: { class: 1, box: 0.5 },
  data: { train: { type: 'npy', features: { image: './x.npy', meta: './ex.npy' }, labels: { class: './y.npy', box: './ey.npy' } } },
  training: { batchSize: 8 },
  optimizer: { name: 'sgd' },
};
const CONFIGS: Record<string, Record<string, unknown>> = {
  withEvalSet,
  withOutputs,
  withHoldout,
  withPlateau,
  withClasses,
  withoutEval,
  ...Object.fromEntries(others.map((c) => [c.optimizer.name, c])),
};

const validate = (raw: unknown, cwd = dir) => validateConfig(raw, { configPath, cwd });
const defaults = validate({
  model: { module: './base.mjs' },
  loss: 'meanSquaredError',
  data: { train: { type: 'mnist' } },
  training: { batchSize: 1 },
  optimizer: { name: 'sgd' },
});

type Leaf = [path: string, value: unknown];
function leaves(v: unknown, at = ''): Leaf[] {
  if (!isMapping(v)) return [[at, v]];
  return Object.entries(v).flatMap(([k, x]) => leaves(x, at ? `${at}.${k}` : k));
}
const valueAt = (obj: unknown, p: string): unknown => p.split('.').reduce<unknown>((o, k) => (isMapping(o) ? o[k] : undefined), obj);

/** The keys of a validated Config that its YAML must hold: all but those validation would reject. */
function mustBeWritten(c: Config): Leaf[] {
  return leaves(c).filter(([p]) => {
    const [section, key] = p.split('.');
    if (section === 'configPath') return false; // set by the loader, never by the user
    if (section === 'optimizer') return key === 'name' || OPTIMIZER_PARAMS[c.optimizer.name].includes(key as never);
    if (section === 'schedule') return key === 'name' || SCHEDULE_PARAMS[c.schedule.name].includes(key as never);
    if (section === 'model') return c.model[key as 'module' | 'json'] !== null;
    return true;
  });
}

/** A key's default: the chosen optimizer's or schedule's, else the minimal config's. */
function defaultOf(c: Config, p: string): unknown {
  const [section, key] = p.split('.');
  if (section === 'optimizer') return optimizerDefaults(c.optimizer.name)[key as keyof ReturnType<typeof optimizerDefaults>];
  if (section === 'schedule') return scheduleDefaults(c.schedule.name)[key as keyof ReturnType<typeof scheduleDefaults>];
  return valueAt(defaults, p);
}

for (const [name, raw] of Object.entries(CONFIGS)) {
  test(`${name}: every key is written, and serialize -> validate gives the same Config`, () => {
    const c = validate(raw);
    const written = parse(serializeConfig(c)) as Record<string, unknown>;
    for (const [p, v] of mustBeWritten(c)) {
      assert.deepEqual(valueAt(written, p), v, `${p} is not written as it was resolved (${JSON.stringify(v)})`);
    }
    // From another directory: every path in the text is already absolute.
    assert.deepEqual(validate(written, os.tmpdir()), c);
  });
}

test('the configs above set every key of the Config, every optimizer and schedule, away from its default', (t) => {
  const changed = new Set<string>();
  const all = new Set<string>();
  const names = { optimizer: new Set<string>(), schedule: new Set<string>() };
  for (const raw of Object.values(CONFIGS)) {
    const c = validate(raw);
    names.optimizer.add(c.optimizer.name);
    names.schedule.add(c.schedule.name);
    for (const [p, v] of mustBeWritten(c)) {
      const key = /^(optimizer|schedule)\./.test(p) ? `${p} (${String(valueAt(c, `${p.split('.')[0]}.name`))})` : p;
      all.add(key);
      if (JSON.stringify(v) !== JSON.stringify(defaultOf(c, p))) changed.add(key);
    }
  }
  assert.deepEqual([...names.optimizer].sort(), [...OPTIMIZER_NAMES].sort());
  assert.deepEqual([...names.schedule].sort(), [...SCHEDULE_NAMES].sort());
  // Every key that exists today is set; a key added later (e.g. to devices) is still written
  // and round-trips above, and is named here until a config sets it.
  const known = [
    'name',
    'model.module',
    'model.json',
    'loss',
    'data.evalFraction',
    'data.classes',
    'training.batchSize',
    'training.epochs',
    'training.steps',
    'training.dropLast',
    'training.seed',
    'training.accumulateSteps',
    'training.clipNorm',
    'training.ema',
    'devices.gpus',
    'devices.simulate',
    'devices.backend',
    'devices.shmDir',
    'devices.replaceWasmKernels',
    'log.every',
    'eval.every',
    'eval.batchSize',
    'eval.topK',
    'eval.useEma',
    'checkpoint.every',
    'checkpoint.keep',
    'eval.every.epochs',
    'checkpoint.every.epochs',
    'checkpoint.best.monitor',
    'checkpoint.best.mode',
    'training.earlyStopping.monitor',
    'training.earlyStopping.mode',
    'training.earlyStopping.patience',
    'training.earlyStopping.minDelta',
    'training.earlyStopping.restoreBest',
    'training.classWeights.0',
    'training.classWeights.3',
    'lossWeights.box',
    'reliability.onWorkerFailure',
    'reliability.maxRestarts',
    'reliability.stepTimeout',
    'reliability.startTimeout',
    'reliability.stallFactor',
    'reliability.stallMinSeconds',
    'reliability.onNonFinite',
    'reliability.maxSkippedFraction',
    'runDir',
    ...OPTIMIZER_NAMES.flatMap((n) => OPTIMIZER_PARAMS[n].map((k) => `optimizer.${k} (${n})`)),
    ...SCHEDULE_NAMES.flatMap((n) => SCHEDULE_PARAMS[n].map((k) => `schedule.${k} (${n})`)),
  ];
  for (const k of known) assert.ok(changed.has(k), `no config above sets ${k} to a value other than its default`);
  const unset = [...all].filter((k) => !changed.has(k) && !/^(data\.(train|eval)|optimizer\.name|schedule\.name)\b/.test(k));
  if (unset.length) t.diagnostic(`keys written with their defaults only: ${unset.join(', ')}`);
});
