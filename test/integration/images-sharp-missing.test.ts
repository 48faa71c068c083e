// Where sharp's binary cannot be loaded, a `type: images` source is refused before any worker
// starts (E_CONFIG at data.train.type, exit 2, saying what to install), and an npy run trains
// as ever: sharp is loaded only by an images source. The missing binary is simulated by a
// preload that makes require('sharp') throw as a missing platform package does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('images-no-sharp');

test('without sharp: images refused with what to install, npy trains', async () => {
  const noSharp = path.join(dir, 'no-sharp.cjs');
  fs.writeFileSync(
    noSharp,
    `const Module = require('module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'sharp') throw new Error('Could not load the "sharp" module using the linux-x64 runtime');
  return resolve.call(this, request, ...rest);
};
`,
  );
  const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${noSharp}` };
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 20);
  const write = (name: string, data: string, model: string) => {
    const file = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(
      file,
      `model: { module: ${model} }\nloss: sparseCategoricalCrossentropy\ndata: { train: ${data} }\ntraining: { batchSize: 10, steps: 2 }\noptimizer: { name: sgd }\nrunDir: ${path.join(dir, name)}\n`,
    );
    return file;
  };
  const images = write('images', `{ type: images, dir: ${digits.dir}, size: [28, 28], channels: 1 }`, writeDigitModel(dir));
  const r = runCli(['train', images, '--simulate', '1', '--backend', 'cpu'], { env });
  assert.equal(r.code, 2, r.stderr + r.stdout);
  assert.match(r.stderr, /error E_CONFIG: data\.train\.type: 'images' decodes with sharp, which cannot be loaded here \(Could not load the "sharp" module/);
  assert.match(r.stderr, /hint: install it beside mgpu-train: npm install sharp/);
  const npy = writeDataset(dir, 'n', 20, 'index', 1);
  const plain = write('npy', `{ type: npy, features: ${npy.features}, labels: ${npy.labels} }`, writeModelModule(dir, 'mlp'));
  const ok = runCli(['train', plain, '--simulate', '1', '--backend', 'cpu'], { env });
  assert.equal(ok.code, 0, ok.stderr + ok.stdout);
});
