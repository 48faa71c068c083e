// What a resumed run may change from the config its checkpoint was trained with: the model,
// loss, data, global batch, seed, optimizer (learning rate included) and schedule are fixed
// (refused naming both values, unless --allow-changed names the key or a section above it);
// logging, eval, checkpoints, devices, reliability and the run's length are not. The optimizer
// kind and the presence of EMA weights cannot change at all.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { TrainerState } from '../../src/coordinator/run/trainer-state.ts';
import { checkConfigChanges } from '../../src/coordinator/run/resume.ts';
import { applyOverrides } from '../../src/config/overrides.ts';
import type { Config } from '../../src/config/types.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-resume-changes-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.mjs', 'other.mjs', 'x.npy', 'y.npy', 'x2.npy']) fs.writeFileSync(path.join(dir, f), '');
const raw = {
  model: { module: './model.mjs' },
  loss: 'categoricalCrossentropy',
  data: { train: { type: 'npy', features: './x.npy', labels: './y.npy' } },
  training: { batchSize: 32, steps: 100, seed: 1, ema: 0.99 },
  optimizer: { name: 'adam', learningRate: 0.001 },
  schedule: { name: 'cosine', decaySteps: 100 },
  devices: { simulate: 2 },
  // Written out, as a resolved config has it: its default would follow data.evalFraction below.
  eval: { every: 0 },
};
const config = (sets: string[] = []): Config => validateConfig(applyOverrides(raw, sets), { configPath: path.join(dir, 'exp.yaml'), cwd: dir });
const state = { step: 50, config: config() } as TrainerState;
const check = (sets: string[], allowed: string[] = []) => checkConfigChanges('ckpt', state, config(sets), allowed);

test('harmless changes are accepted and reported in one line', () => {
  const sets = [
    'log.every=1',
    'eval.topK=2',
    'checkpoint.every=5',
    'devices.simulate=4',
    'reliability.maxRestarts=9',
    'training.steps=200',
    'training.accumulateSteps=2',
    'name=renamed',
  ];
  const { changes, report } = check(sets);
  assert.equal(changes.length, sets.length);
  assert.equal(
    report,
    'changed on resume: name exp → renamed, training.steps 100 → 200, training.accumulateSteps 1 → 2, devices.simulate 2 → 4, ' +
      'log.every 10 → 1, eval.topK 5 → 2, checkpoint.every 0 → 5, reliability.maxRestarts 3 → 9',
  );
  assert.deepEqual(check([]), { changes: [], report: null });
});

test('what the checkpoint fixes is refused, naming the new and the old value and the flag that allows it', () => {
  const fixed: Array<[string, RegExp]> = [
    ['optimizer.learningRate=0.01', /optimizer\.learningRate is 0\.01, the checkpoint was trained with 0\.001/],
    ['optimizer.beta1=0.8', /optimizer\.beta1 is 0\.8, the checkpoint was trained with 0\.9/],
    ['schedule.decaySteps=50', /schedule\.decaySteps is 50, the checkpoint was trained with 100/],
    ['training.batchSize=64', /training\.batchSize is 64, the checkpoint was trained with 32/],
    ['training.seed=2', /training\.seed is 2, the checkpoint was trained with 1/],
    ['training.dropLast=true', /training\.dropLast is true, the checkpoint was trained with false/],
    ['training.clipNorm=1', /training\.clipNorm is 1, the checkpoint was trained with null/],
    ['training.ema=0.9', /training\.ema is 0\.9, the checkpoint was trained with 0\.99/],
    ['loss=meanSquaredError', /loss is meanSquaredError, the checkpoint was trained with categoricalCrossentropy/],
    ['model.module=./other.mjs', /model\.module is \S+other\.mjs, the checkpoint was trained with \S+model\.mjs/],
    ['data.train.features=./x2.npy', /data\.train\.features is \S+x2\.npy, the checkpoint was trained with \S+x\.npy/],
    ['data.evalFraction=0.1', /data\.evalFraction is 0\.1, the checkpoint was trained with null/],
  ];
  for (const [set, message] of fixed) {
    const key = set.slice(0, set.indexOf('='));
    assert.throws(
      () => check([set]),
      (err: Error & { code?: string; hint?: string }) => {
        assert.equal(err.code, 'E_CONFIG', set);
        assert.match(err.message, /^cannot resume from ckpt: /);
        assert.match(err.message, message, set);
        assert.ok(err.hint?.includes(`--allow-changed ${key}`), `${set}: ${err.hint}`);
        return true;
      },
    );
    const section = key.split('.')[0]!;
    for (const allow of [key, section]) {
      const { report } = check([set], [allow]);
      assert.match(
        report ?? '',
        new RegExp(`^changed on resume: ${key.replace('.', '\\.')} .* \\(--allow-changed\\)$`),
        `${set} with --allow-changed ${allow}`,
      );
    }
  }
});

test('every refused change is named at once', () => {
  assert.throws(() => check(['training.seed=2', 'optimizer.learningRate=0.01', 'log.every=1']), {
    message: /training\.seed is 2, the checkpoint was trained with 1; optimizer\.learningRate is 0\.01, the checkpoint was trained with 0\.001$/,
  });
});

test('--allow-changed names a key or a section, not a prefix of a name, and not a key that does not exist', () => {
  assert.throws(() => check(['optimizer.learningRate=0.01'], ['optimizer.learning']), { message: /^--allow-changed optimizer\.learning: no config key/ });
  assert.throws(() => check([], ['optimizer.lr']), { code: 'E_USAGE', message: '--allow-changed optimizer.lr: no config key is optimizer.lr or under it' });
});

test('the optimizer kind and the presence of EMA weights cannot change, even when allowed', () => {
  const optimizer = config(['optimizer.name=adamw']);
  assert.throws(() => checkConfigChanges('ckpt', state, optimizer, ['optimizer']), {
    message: /optimizer\.name is adamw, the checkpoint was trained with adam: the checkpoint's optimizer state is adam's/,
  });
  assert.throws(() => check(['training.ema=null'], ['training']), {
    message: /training\.ema is null, the checkpoint was trained with 0\.99: the checkpoint's EMA weights would be dropped/,
  });
});

test('a checkpoint written before class and sample weights existed resumes: their null defaults are no change', () => {
  const before = structuredClone(config()) as unknown as { training: Record<string, unknown>; data: { train: Record<string, unknown> } };
  delete before.training.classWeights;
  delete before.data.train.weights;
  const old = { step: 50, config: before } as unknown as TrainerState;
  assert.deepEqual(checkConfigChanges('ckpt', old, config(), []), { changes: [], report: null });
  assert.throws(
    () => checkConfigChanges('ckpt', old, config(['training.classWeights=[1,2,3]']), []),
    /training\.classWeights is \{"0":1,"1":2,"2":3\}, the checkpoint was trained with \(not set\)/,
  );
});
