// `--backend webgpu` on a machine whose only adapter is a software one (lavapipe): exit 2
// before any worker starts, naming the adapter and the key that allows it; with
// devices.allowSoftwareAdapter the same command trains, and the header names the adapter each
// rank computes on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { probeAdapters } from '../../src/coordinator/devices/webgpu-probe.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needWebgpu } from '../helpers/webgpu.ts';

const dir = tempDir('webgpu-cli');
const config = path.join(dir, 'exp.yaml');
fs.writeFileSync(
  config,
  JSON.stringify({
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 24, 'onehot', 3) },
    training: { batchSize: 8, steps: 3 },
    optimizer: { name: 'sgd' },
  }),
);

test('webgpu on a software adapter: refused (exit 2, no run directory), then allowed by the key', async (t) => {
  if (!(await needWebgpu(t))) return;
  const probe = await probeAdapters({});
  if (!probe.adapter?.software) {
    t.skip(`this machine has a hardware adapter (${probe.adapter?.description})`);
    return;
  }
  const run = path.join(dir, 'run');
  const refused = runCli(['train', config, '--backend', 'webgpu', '--run-dir', run]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /error E_BACKEND: devices\.backend is webgpu, but the only adapter is a software one: llvmpipe/);
  assert.match(refused.stderr, /hint: set devices\.allowSoftwareAdapter: true/);
  assert.ok(!fs.existsSync(run), 'a run directory was made');
  const allowed = runCli([
    'train',
    config,
    '--backend',
    'webgpu',
    '--set',
    'devices.allowSoftwareAdapter=true',
    '--set',
    'devices.workersPerGpu=2',
    '--run-dir',
    run,
  ]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout + allowed.stderr, /rank 1: adapter 0, worker 2 of 2 -> webgpu on llvmpipe/);
});
