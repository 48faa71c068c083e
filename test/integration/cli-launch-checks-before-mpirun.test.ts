// `launch` checks its mgpu-train arguments (the flags, the config file and its keys) before it
// starts mpirun, whose abort banner would otherwise hide the error every rank prints; `launch
// --help` prints launch's help. An `mpirun` on PATH that records its arguments shows whether it
// was started.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('launch-checks');
const started = path.join(dir, 'mpirun-started');
const bin = path.join(dir, 'bin');
fs.mkdirSync(bin);
fs.writeFileSync(path.join(bin, 'mpirun'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${started}'\n`, { mode: 0o755 });
const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };

const config = (name: string, extra: Record<string, unknown> = {}) => {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    stringify({
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'categoricalCrossentropy',
      data: { train: writeDataset(dir, 'train', 12, 'onehot', 5) },
      training: { batchSize: 6, steps: 1 },
      optimizer: { name: 'sgd' },
      ...extra,
    }),
  );
  return file;
};

/** `launch -np 2 -- <mgpu>` with the recording mpirun: what it printed, and whether mpirun started. */
function launch(mgpu: string[]) {
  fs.rmSync(started, { force: true });
  const r = runCli(['launch', '-np', '2', '--', ...mgpu], { env, cwd: dir });
  return { ...r, mpirun: fs.existsSync(started) ? fs.readFileSync(started, 'utf8').trim().split('\n') : null };
}

test('a missing config is said here, and mpirun is not started', () => {
  const r = launch(['train', path.join(dir, 'exp.yml')]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^error E_CONFIG: config file not found: .*exp\.yml\n {2}hint: launch checks the train command and its config on this machine before it starts mpirun/,
  );
  assert.equal(r.mpirun, null);
  assert.doesNotMatch(r.stdout, /mgpu-train launch: mpirun/);
});

test('a mistyped key or flag is said here, and mpirun is not started', () => {
  const key = launch(['train', config('typo.yaml', { trainig: { seed: 1 } })]);
  assert.equal(key.code, 2);
  assert.match(key.stderr, /^error E_CONFIG: trainig: unknown key/);
  assert.equal(key.mpirun, null);
  const flag = launch(['train', config('ok.yaml'), '--simulat', '2']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /^error E_USAGE: train: unknown option --simulat: did you mean --simulate\?/);
  assert.equal(flag.mpirun, null);
});

test('a good command starts mpirun with it', () => {
  const file = config('good.yaml');
  const r = launch(['train', file, '--simulate', '1']);
  assert.equal(r.code, 0, r.stderr);
  const line = r.mpirun ?? [];
  assert.deepEqual(line.slice(-6), [process.execPath, path.resolve(import.meta.dirname, '../../bin/mgpu-train.mjs'), 'train', file, '--simulate', '1']);
  assert.deepEqual(line.slice(line.indexOf('-np'), line.indexOf('-np') + 2), ['-np', '2']);
});

test('launch --help prints its help, exit 0, without mpirun', () => {
  for (const args of [
    ['launch', '--help'],
    ['launch', '-H', 'node-a', '--help'],
  ]) {
    fs.rmSync(started, { force: true });
    const r = runCli(args, { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^mgpu-train launch <mpirun arguments> -- train <config> \[options\]\n/);
    assert.match(r.stdout, /Examples:\n {2}mgpu-train launch -H node-a,node-b -np 2 -- train exp\.yaml\n/);
    assert.equal(r.stderr, '');
    assert.ok(!fs.existsSync(started));
  }
});
