// A resumed run of a network by name: its options are written model.dropout, model.classes,
// model.inputShape, ... (and the network model.net), so a changed one is named that way in the
// refusal, its hint and the report, and --allow-changed takes that name; the names the resolved
// config keeps them under (model.net.dropout, model.net.name) are still accepted.
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

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-resume-net-keys-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['x.npy', 'y.npy']) fs.writeFileSync(path.join(dir, f), '');
const raw = {
  model: { net: 'mobilenet-v2', classes: 10, inputShape: [32, 32, 3], dropout: 0.2 },
  loss: 'sparseCategoricalCrossentropy',
  data: { train: { type: 'npy', features: './x.npy', labels: './y.npy' } },
  training: { batchSize: 8, steps: 10, seed: 1 },
  optimizer: { name: 'sgd', learningRate: 0.1 },
  devices: { simulate: 1 },
  eval: { every: 0 },
};
const config = (sets: string[] = []): Config => validateConfig(applyOverrides(raw, sets), { configPath: path.join(dir, 'exp.yaml'), cwd: dir });
const state = { step: 5, config: config() } as TrainerState;
const check = (sets: string[], allowed: string[] = []) => checkConfigChanges('ckpt', state, config(sets), allowed);

test('a changed network option is refused under the name the config gives it', () => {
  assert.throws(
    () => check(['model.dropout=0.5']),
    (e: Error & { hint?: string }) => {
      assert.match(e.message, /: model\.dropout is 0\.5, the checkpoint was trained with 0\.2$/);
      assert.match(e.hint ?? '', /--allow-changed model\.dropout,/);
      assert.doesNotMatch(`${e.message} ${e.hint}`, /model\.net\./);
      return true;
    },
  );
  assert.throws(() => check(['model.net=vgg16']), /: model\.net is vgg16, the checkpoint was trained with mobilenet-v2$/);
  assert.throws(() => check(['model.classes=12']), /: model\.classes is 12, the checkpoint was trained with 10$/);
});

test("--allow-changed takes the name as written, and the resolved config's name", () => {
  assert.equal(check(['model.dropout=0.5'], ['model.dropout']).report, 'changed on resume: model.dropout 0.2 → 0.5 (--allow-changed)');
  assert.equal(check(['model.dropout=0.5'], ['model.net.dropout']).report, 'changed on resume: model.dropout 0.2 → 0.5 (--allow-changed)');
  assert.equal(check(['model.dropout=0.5'], ['model']).report, 'changed on resume: model.dropout 0.2 → 0.5 (--allow-changed)');
  // model.net is also the resolved config's section of every network option, as before.
  assert.equal(check(['model.dropout=0.5'], ['model.net']).report, 'changed on resume: model.dropout 0.2 → 0.5 (--allow-changed)');
  assert.throws(() => check(['model.net=vgg16'], ['model.dropout']), /model\.net is vgg16/);
  assert.equal(check(['model.net=vgg16'], ['model.net']).report, 'changed on resume: model.net mobilenet-v2 → vgg16 (--allow-changed)');
  assert.equal(check(['model.net=vgg16'], ['model.net.name']).report, 'changed on resume: model.net mobilenet-v2 → vgg16 (--allow-changed)');
  assert.throws(() => check([], ['model.nope']), /--allow-changed model\.nope: no config key is model\.nope or under it/);
});
