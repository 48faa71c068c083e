// Resuming a run that has run all its steps says so and exits 0, without starting a worker or
// writing anything: metrics.jsonl, config.yaml, final/ and the checkpoints stay as they were.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { writeNotedModel } from '../helpers/noted-model.ts';
import { tempDir, writeDataset } from '../helpers/train-fixture.ts';

test('a finished run: exit 0, it says so, nothing started and nothing written', async () => {
  const dir = tempDir('resume-finished');
  const noted = writeNotedModel(dir);
  const model = noted.module;
  const runDir = path.join(dir, 'run');
  const file = writeConfigFile(dir, 'done', {
    model: { module: model },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 24, 'onehot', 4), eval: writeDataset(dir, 'eval', 8, 'onehot', 5) },
    training: { batchSize: 8, steps: 4 },
    optimizer: { name: 'sgd' },
    checkpoint: { every: 2 },
    devices: { simulate: 2, backend: 'cpu' },
    runDir,
  });
  const first = await runCliAsync(['train', file]);
  assert.equal(first.code, 0, first.stderr);
  const snapshot = () =>
    fs
      .readdirSync(runDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const p = path.join(e.parentPath, e.name);
        return `${p} ${fs.statSync(p).mtimeMs} ${fs.readFileSync(p).toString('base64')}`;
      })
      .sort();
  const before = snapshot();
  noted.reset();

  const procs = tagProcesses();
  const r = await runCliAsync(['train', file, '--resume'], { env: procs.env });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.match(
    r.stdout,
    new RegExp(`^the run in ${runDir} has finished: ${runDir}/checkpoints/step-4 is at step 4 of 4, and its model is in ${runDir}/final; nothing to do`, 'm'),
  );
  assert.doesNotMatch(r.stdout, /resuming from|eval @|model saved/);
  assert.ok(!noted.built(), 'a worker started');
  assert.deepEqual(snapshot(), before, 'the run directory was written');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
});
