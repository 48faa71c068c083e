// The shared-memory directory, through the CLI: missing, or too small for the slab. Exit 2, an
// E_SHM message naming the directory, how large the slab must be, and how to change it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('bad-shm');
const data = writeDataset(dir, 'train', 40, 'onehot', 1);
// 6 -> 100,000 -> 3: 1.0 M parameters, 4 MB of weights, so the slab of 2 workers is ~12 MiB.
const big = path.join(dir, 'big.mjs');
fs.writeFileSync(
  big,
  "export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 100000 }), tf.layers.dense({ units: 3, activation: 'softmax' })] });\n",
);
const small = path.join(dir, 'small.mjs');
fs.writeFileSync(small, "export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 3, activation: 'softmax' })] });\n");

function train(module: string, shmDir: string) {
  const cfg = path.join(dir, 'exp.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      model: { module },
      loss: 'categoricalCrossentropy',
      data: { train: data },
      training: { batchSize: 8, steps: 2 },
      optimizer: { name: 'sgd' },
    }),
  );
  return runCli(['train', cfg, '--simulate', '2', '--backend', 'cpu', '--run-dir', path.join(dir, 'run'), '--set', `devices.shmDir=${shmDir}`]);
}

test('devices.shmDir does not exist: exit 2, names it and the key to change', () => {
  const r = train(small, '/nonexistent');
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_SHM: shared-memory directory \/nonexistent does not exist\n\s+hint: set devices\.shmDir \(or --set devices\.shmDir=\/path\)/);
  assert.ok(!fs.existsSync(path.join(dir, 'run', 'metrics.jsonl')), 'training started');
});

test('devices.shmDir too small (a 1 MiB tmpfs): exit 2, how large the slab must be and how to get that', (t) => {
  const shm = fs.mkdtempSync(path.join(dir, 'tmpfs-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', shm], { encoding: 'utf8' });
  if (mount.status !== 0) {
    t.skip(`cannot mount a tmpfs here (${(mount.stderr || mount.error?.message || `exit ${mount.status}`).trim()})`);
    return;
  }
  try {
    const r = train(big, shm);
    t.diagnostic(
      r.stderr
        .split('\n')
        .filter((l) => /E_SHM|hint/.test(l))
        .join(' | '),
    );
    assert.equal(r.code, 2, r.stderr);
    const m = new RegExp(`error E_SHM: the slab needs (\\d+) MiB but ${shm} has 1 MiB free`).exec(r.stderr);
    assert.ok(m, r.stderr);
    assert.ok(Number(m[1]) > 8, `the slab of ~1 M parameters on 2 workers needs more than ${m[1]} MiB`);
    assert.match(r.stderr, /hint: give the container more shared memory \(docker run --shm-size=\d+m\) or set devices\.shmDir to a directory with room/);
    assert.deepEqual(fs.readdirSync(shm), [], 'the slab left a file in the tmpfs');
    assert.ok(!fs.existsSync(path.join(dir, 'run', 'metrics.jsonl')), 'training started');
  } finally {
    spawnSync('umount', [shm]);
  }
});
