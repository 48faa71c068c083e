// `--resume runs/other` with a config whose run directory is another one is refused naming both
// run directories: nothing is written to either (it used to continue the other run's step count
// into this config's run directory, overwriting its final/ and appending to its metrics).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('a checkpoint of another run directory is refused, naming both; neither is touched', async () => {
  const dir = tempDir('resume-other');
  const common = {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 24, 'onehot', 4) },
    optimizer: { name: 'sgd' },
    checkpoint: { every: 2 },
    devices: { simulate: 2, backend: 'cpu' },
  };
  const mine = path.join(dir, 'runs', 'mine');
  const other = path.join(dir, 'runs', 'other');
  const mineFile = writeConfigFile(dir, 'mine', { ...common, training: { batchSize: 8, steps: 3 }, runDir: mine });
  const otherFile = writeConfigFile(dir, 'other', { ...common, training: { batchSize: 8, steps: 4 }, runDir: other });
  for (const f of [mineFile, otherFile]) {
    const r = await runCliAsync(['train', f]);
    assert.equal(r.code, 0, r.stderr);
  }
  const snapshot = (d: string) =>
    fs
      .readdirSync(d, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const p = path.join(e.parentPath, e.name);
        return `${p} ${fs.statSync(p).mtimeMs} ${fs.readFileSync(p).length}`;
      })
      .sort();
  const before = [snapshot(mine), snapshot(other)];

  const procs = tagProcesses();
  const r = await runCliAsync(['train', mineFile, '--resume', other], { env: procs.env });
  assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(
    r.stderr,
    new RegExp(`^error E_USAGE: --resume ${other}/checkpoints/step-4 is a checkpoint of the run in ${other}, but this config's run directory is ${mine}$`, 'm'),
  );
  assert.match(r.stderr, new RegExp(`hint: to continue that run, add --run-dir ${other}; to continue this one, use --resume without a directory`));
  assert.deepEqual([snapshot(mine), snapshot(other)], before, 'a run directory was written');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
});
