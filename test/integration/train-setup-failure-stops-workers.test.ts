// A failure after the workers have started and before the first step (here: the run
// directory's config.yaml is a directory, so the config written beside it cannot be renamed
// onto it; not being a file, it is no earlier run's config.yaml) stops the workers and exits:
// no hang, no process of the run left alive, and a system error is printed without a stack.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('config.yaml cannot be written once the workers are up: they are stopped, the CLI exits 1 naming the file', async () => {
  const dir = tempDir('setup-failure');
  const runDir = path.join(dir, 'run');
  fs.mkdirSync(path.join(runDir, 'config.yaml'), { recursive: true });
  const file = writeConfigFile(dir, 'setup', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 16, 'onehot', 1) },
    training: { batchSize: 8, steps: 2 },
    optimizer: { name: 'sgd' },
    devices: { simulate: 2, backend: 'cpu' },
    runDir,
  });
  const procs = tagProcesses();
  const r = await runCliAsync(['train', file], { env: procs.env, timeoutMs: 60_000 });
  assert.equal(r.signal, null, `the CLI hung and was killed\n${r.stdout}\n${r.stderr}`);
  assert.equal(r.code, 1, r.stderr);
  const yaml = path.join(runDir, 'config.yaml');
  assert.match(r.stderr, new RegExp(`^error E_IO: EISDIR: illegal operation on a directory, rename '${yaml}\\.tmp-\\d+' -> '${yaml}'$`, 'm'));
  assert.deepEqual(fs.readdirSync(runDir), ['config.yaml'], 'the temporary file was left');
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
});
