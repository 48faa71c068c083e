// A model with two outputs cannot be written to one .npy file: `predict --output y.npy` is a
// usage error (exit 2) once the workers have built the model, before any row is predicted,
// naming the outputs and the directory to write instead; nothing is written, nothing left running.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

test('predict --output y.npy of a model with two outputs is refused, with the directory to use', async () => {
  const dir = tempDir('predict-two-io-npy');
  const raw = {
    name: 'predict-two-io-npy',
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    data: { train: { type: 'npy', ...writeTwoIoData(dir, 'train', 8, 1) } },
    training: { batchSize: 4, steps: 1 },
    optimizer: { name: 'sgd' },
    devices: { simulate: 2, backend: 'cpu' },
  };
  const cfg = buildConfig(dir, raw, 2);
  const final = path.dirname((await train(cfg, silent)).modelPath!);
  const rows = writeTwoIoData(dir, 'new', 5, 2).features;
  const file = writeConfigFile(dir, 'predict', { ...raw, runDir: cfg.runDir });
  const output = path.join(dir, 'y.npy');
  const procs = tagProcesses();
  const r = await runCliAsync(['predict', file, '--checkpoint', final, '--input', `image=${rows.image}`, '--input', `meta=${rows.meta}`, '--output', output], {
    env: procs.env,
  });
  assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, new RegExp(`^error E_USAGE: --output ${output}: the model has 2 outputs \\('class', 'box'\\); a \\.npy file holds one$`, 'm'));
  assert.match(r.stderr, new RegExp(`hint: name a directory instead: --output ${path.join(dir, 'y')} writes class\\.npy, box\\.npy into it`));
  assert.doesNotMatch(r.stdout, /predicted/);
  assert.ok(!fs.existsSync(output), 'nothing written');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
});
