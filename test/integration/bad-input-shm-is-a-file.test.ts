// devices.shmDir naming a file (not a directory) is named as such, not as missing: exit 2, E_SHM.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('devices.shmDir is a file: exit 2, "is a file, not a directory"', () => {
  const dir = tempDir('shm-is-a-file');
  const file = path.join(dir, 'not-a-dir');
  fs.writeFileSync(file, 'x');
  const cfg = path.join(dir, 'exp.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'categoricalCrossentropy',
      data: { train: writeDataset(dir, 'train', 16, 'onehot', 1) },
      training: { batchSize: 8, steps: 1 },
      optimizer: { name: 'sgd' },
    }),
  );
  const r = runCli(['train', cfg, '--simulate', '1', '--backend', 'cpu', '--run-dir', path.join(dir, 'run'), '--set', `devices.shmDir=${file}`]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(
    r.stderr,
    `error E_SHM: shared-memory directory ${file} is a file, not a directory\n  hint: set devices.shmDir (or --set devices.shmDir=/path) to a directory on a tmpfs or a fast local disk\n`,
  );
});
