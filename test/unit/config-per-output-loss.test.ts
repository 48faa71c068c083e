// `loss` as one loss per output, `lossWeights`, and npy features/labels as files by name: their
// shapes and values are checked with key paths; one loss per output refuses class weights,
// applies each metric to the outputs whose loss suits it (refusing one that suits none), and
// lets a monitor name eval.loss or one output's figure (eval.accuracy.class), in its direction.
// Which names the model has is checked once it is built (test/integration/bad-input-two-io.test.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-per-output-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.js', 'a.npy', 'b.npy', 'c.npy', 'd.npy']) fs.writeFileSync(path.join(dir, f), '');
const base = (over: Raw = {}): Raw =>
  minimalConfig({
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    data: { train: { type: 'npy', features: { image: 'a.npy', meta: 'b.npy' }, labels: { class: 'c.npy', box: 'd.npy' } } },
    training: { batchSize: 8 },
    optimizer: { name: 'sgd' },
    ...over,
  });
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });

test('files by input and output name, a loss per output, loss weights', () => {
  const c = validate(base({ lossWeights: { class: 1, box: 0.5 } }));
  assert.deepEqual(c.loss, { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' });
  assert.deepEqual(c.lossWeights, { class: 1, box: 0.5 });
  assert.deepEqual(c.data.train.type === 'npy' && c.data.train.features, { image: path.join(dir, 'a.npy'), meta: path.join(dir, 'b.npy') });
  assert.equal(validate(base({ loss: 'meanSquaredError' })).lossWeights, null);
});

test('a loss name, a weight and a file are checked under their name', () => {
  rejects(base({ loss: { class: 'crossEntropy', box: 'meanSquaredError' } }), 'loss.class', /expected one of 'categoricalCrossentropy'.*got "crossEntropy"/);
  rejects(base({ loss: {} }), 'loss', /or a mapping of the model's output names to them/);
  rejects(base({ lossWeights: { box: -1 } }), 'lossWeights.box', /expected a finite number >= 0, got -1/);
  rejects(base({ lossWeights: 0.5 }), 'lossWeights', /a mapping of the model's output names to weights/);
  rejects(
    base({ data: { train: { type: 'npy', features: { image: 'a.npy', meta: 'nope.npy' }, labels: 'c.npy' } } }),
    'data.train.features.meta',
    /file not found: .*nope\.npy/,
  );
  rejects(
    base({ data: { train: { type: 'npy', features: {}, labels: 'c.npy' } } }),
    'data.train.features',
    /a file, or a mapping of the model's input names to files/,
  );
});

test('one loss per output refuses class weights', () => {
  rejects(base({ training: { batchSize: 8, classWeights: [1, 2] } }), 'training.classWeights', /loss names one loss per output/);
});

test('one loss per output: a metric applies to the outputs it suits; one that suits none is refused, naming it', () => {
  const withEval = (over: Raw) => base({ data: { train: (base().data as Raw).train, evalFraction: 0.2 }, ...over });
  assert.deepEqual(validate(withEval({ metrics: ['accuracy', 'rmse', { name: 'f1', average: 'micro' }] })).metrics, [
    { name: 'accuracy', average: null },
    { name: 'rmse', average: null },
    { name: 'f1', average: 'micro' },
  ]);
  rejects(
    withEval({ loss: { a: 'meanSquaredError', b: 'meanSquaredError' }, metrics: ['rmse', 'auc'] }),
    'metrics[1]',
    /'auc' suits no output of the model \('a' meanSquaredError, 'b' meanSquaredError\)/,
  );
  rejects(
    withEval({ loss: { a: 'binaryCrossentropy', b: 'meanSquaredError' }, metrics: ['topK'] }),
    'metrics[0]',
    /'topK' suits no output of the model .*a categorical loss/,
  );
});

test('one loss per output: monitors name eval.loss or one output figure, with its direction', () => {
  const watch = (monitor: string, metrics?: unknown[], mode?: string) =>
    validate(
      base({
        data: { train: (base().data as Raw).train, evalFraction: 0.2 },
        checkpoint: { best: { monitor, ...(mode ? { mode } : {}) } },
        ...(metrics ? { metrics } : {}),
      }),
    ).checkpoint.best;
  assert.deepEqual(watch('eval.loss'), { monitor: 'eval.loss', mode: 'min' });
  assert.deepEqual(watch('eval.accuracy.class'), { monitor: 'eval.accuracy.class', mode: 'max' });
  assert.deepEqual(watch('eval.loss.box'), { monitor: 'eval.loss.box', mode: 'min' });
  assert.deepEqual(watch('eval.mae.box'), { monitor: 'eval.mae.box', mode: 'min' });
  assert.deepEqual(watch('eval.top_k.class'), { monitor: 'eval.top_k.class', mode: 'max' });
  assert.deepEqual(watch('eval.f1_macro.class', ['f1']), { monitor: 'eval.f1_macro.class', mode: 'max' });
  assert.deepEqual(watch('eval.rmse.box', ['rmse']), { monitor: 'eval.rmse.box', mode: 'min' });
  const raw = (monitor: string, metrics?: unknown[], mode?: string) =>
    base({
      data: { train: (base().data as Raw).train, evalFraction: 0.2 },
      checkpoint: { best: { monitor, ...(mode ? { mode } : {}) } },
      ...(metrics ? { metrics } : {}),
    });
  // The box output is a regression: no accuracy; a metric not listed is not on the line; the total has no accuracy.
  rejects(
    raw('eval.accuracy.box'),
    'checkpoint.best.monitor',
    /expected one of 'eval\.loss', 'eval\.loss\.class', 'eval\.accuracy\.class'.*got "eval\.accuracy\.box"/,
  );
  rejects(raw('eval.accuracy'), 'checkpoint.best.monitor', /got "eval\.accuracy"/);
  rejects(raw('eval.f1_macro.box', ['f1']), 'checkpoint.best.monitor', /got "eval\.f1_macro\.box"/);
  rejects(raw('eval.f1_macro.class'), 'checkpoint.best.monitor', /got "eval\.f1_macro\.class"/);
  rejects(raw('eval.accuracy.class', undefined, 'min'), 'checkpoint.best.mode', /improves upward/);
});
