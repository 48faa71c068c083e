// training.classWeights on a model whose output has positions (5 time steps of one-hot classes,
// [n, 5, 3]) is refused through the command line, as Keras refuses class_weight for 3+
// dimensional targets: a sample has a class per step, not one to weigh (the argmax over all 15
// values of a sample's labels would weigh it by a "class" up to 14). One error line naming the
// key and the output's shape, a hint, exit 2, nothing written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { writeFeatures, writeLabels, writeLayersModule } from '../helpers/positional-output.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('class-weights-positions');

test('classWeights with a [n, 5, 3] categorical output: E_CONFIG naming the shape, exit 2', () => {
  const x = writeFeatures(dir, 'train', 10, [5, 2], 7);
  const y = new Float32Array(10 * 5 * 3);
  for (let s = 0; s < 50; s++) y[s * 3 + (x.x.data[s * 2]! > 0 ? 1 : 0)] = 1;
  const config = path.join(dir, 'steps.yaml');
  fs.writeFileSync(
    config,
    stringify({
      model: {
        module: writeLayersModule(
          dir,
          'steps',
          `tf.layers.timeDistributed({ inputShape: [5, 2], layer: tf.layers.dense({ units: 3, activation: 'softmax' }) }),`,
        ),
      },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'npy', features: x.file, labels: writeLabels(dir, 'train', { dtype: 'float32', shape: [10, 5, 3], data: y }) } },
      training: { batchSize: 4, steps: 2, classWeights: { 0: 1, 2: 3 } },
      optimizer: { name: 'sgd' },
    }),
  );
  const r = runCli(['train', config, '--simulate', '2', '--backend', 'cpu'], { cwd: dir });
  const out = r.stdout + r.stderr;
  assert.equal(r.code, 2, out);
  assert.match(
    out,
    /error E_CONFIG: training\.classWeights: is set, but the model's output is \[batch, 5, 3\]: a class per position, not one class per sample to weigh\n {2}hint: weigh samples with sample weights/,
  );
  assert.doesNotMatch(out, /\n\s+at /, 'no stack trace');
  assert.ok(!fs.existsSync(path.join(dir, 'runs', 'steps')), 'nothing written');
});
