// An image folder trains a network named in the config, end to end through the command:
// `model: { net: lenet }` with no classes takes the folder's class count (10 digit folders),
// two simulated GPUs train it, and the saved model is an ordinary LayersModel that plain
// tf.loadLayersModel loads (no layer class registered) and that predicts 10 classes; predict
// builds it again, its classes from the model's labels.json.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Tensor, io } from '@tensorflow/tfjs';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { loadTf, tempDir } from '../helpers/train-fixture.ts';

test('an image folder trains lenet by name on 2 workers; the saved model loads in plain tfjs', async () => {
  const dir = tempDir('nets-images');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 60);
  assert.equal(new Set(digits.labels).size, 10, 'every digit has a folder');
  fs.writeFileSync(
    path.join(dir, 'exp.yaml'),
    `model: { net: lenet, weightDecay: 0.0005 }
loss: sparseCategoricalCrossentropy
data:
  train: { type: images, dir: ./digits, size: [28, 28], channels: 1 }
training: { batchSize: 20, epochs: 1 }
optimizer: { name: momentum, learningRate: 0.05, momentum: 0.9 }
runDir: ./runs/exp
`,
  );
  const r = runCli(['train', path.join(dir, 'exp.yaml'), '--simulate', '2', '--backend', 'cpu'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /model {7}lenet at 28x28x1: 61,706 trainable parameters/);
  assert.match(r.stdout, /trained 3 steps/);

  const final = path.join(dir, 'runs', 'exp', 'final');
  const json = JSON.parse(fs.readFileSync(path.join(final, 'model.json'), 'utf8')) as io.ModelJSON;
  const manifest = json.weightsManifest[0]!;
  const bin = fs.readFileSync(path.join(final, manifest.paths[0]!));
  const tf = await loadTf();
  const model = await tf.loadLayersModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: manifest.weights,
      weightData: bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
    }),
  );
  const out = model.predict(tf.zeros([2, 28, 28, 1])) as Tensor;
  assert.deepEqual(out.shape, [2, 10]);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(final, 'labels.json'), 'utf8')).classes, ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  out.dispose();
  model.dispose();

  // predict builds the same network: its classes from the model's labels.json (the config names none).
  const csv = path.join(dir, 'threes.csv');
  const p = runCli(
    [
      'predict',
      path.join(dir, 'exp.yaml'),
      '--checkpoint',
      final,
      '--input',
      path.join(dir, 'digits', '3'),
      '--output',
      csv,
      '--simulate',
      '1',
      '--backend',
      'cpu',
    ],
    { cwd: dir },
  );
  assert.equal(p.code, 0, p.stderr);
  const [header, ...rows] = fs.readFileSync(csv, 'utf8').trimEnd().split('\n');
  assert.equal(header, 'path,class,score');
  assert.equal(rows.length, digits.labels.filter((l) => l === 3).length);
});
