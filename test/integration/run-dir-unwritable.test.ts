// A run directory that cannot be written (under a regular file, in /sys, read-only, itself a
// file) is refused before any worker starts: exit 2, naming the path, no stack trace, and no
// process of the run left alive. The model module notes each build, so "no worker started" is
// seen, not assumed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { writeNotedModel } from '../helpers/noted-model.ts';
import { tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('unwritable');
const noted = writeNotedModel(dir);
const model = noted.module;
const file = writeConfigFile(dir, 'unwritable', {
  model: { module: model },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 16, 'onehot', 1) },
  training: { batchSize: 8, steps: 2 },
  optimizer: { name: 'sgd' },
  devices: { simulate: 2, backend: 'cpu' },
});
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function refused(runDir: string, why: RegExp): Promise<void> {
  noted.reset();
  const procs = tagProcesses();
  const r = await runCliAsync(['train', file, '--run-dir', runDir], { env: procs.env, timeoutMs: 60_000 });
  assert.equal(r.code, 2, `exit ${r.code} ${r.signal ?? ''}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, new RegExp(`^error E_CONFIG: runDir: cannot write the run to ${escape(runDir)}: `, 'm'));
  assert.match(r.stderr, why);
  assert.match(r.stderr, /hint: set runDir in the config, or --run-dir, to a directory this user can write/);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.ok(!noted.built(), 'a worker started (it built the model)');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
}

test('a run directory under a regular file', async () => {
  const blocker = path.join(dir, 'a-file');
  fs.writeFileSync(blocker, '');
  await refused(path.join(blocker, 'runs', 'x'), new RegExp(`${escape(blocker)} is a file, not a directory, so nothing can be created under it`));
});

test('a run directory that is a regular file', async () => {
  const blocker = path.join(dir, 'run-is-a-file');
  fs.writeFileSync(blocker, '');
  await refused(blocker, new RegExp(`${escape(blocker)} is a file, not a directory$`, 'm'));
});

test('a run directory in /sys', { skip: !fs.existsSync('/sys/kernel') && 'no /sys here' }, async () => {
  await refused(`/sys/mgpu-test-${process.pid}/run`, /cannot create anything in \/sys \(/);
});

test('a read-only run directory', { skip: process.getuid?.() === 0 && 'root writes to a read-only directory' }, async () => {
  const ro = path.join(dir, 'read-only');
  fs.mkdirSync(ro, { mode: 0o555 });
  await refused(path.join(ro, 'run'), new RegExp(`cannot create anything in ${escape(ro)} \\(permission denied\\)`));
});
