// GPUs that are not there, through the CLI with a fake nvidia-smi: exit 2 before any worker
// starts, an E_DEVICES (or E_CONFIG / E_USAGE) message naming the GPU asked for and what is visible.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fakeNvidiaSmi } from '../helpers/fake-nvidia-smi.ts';
import { runCli } from '../helpers/run-cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bad-devices-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), 'export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 2 })] });\n');
const config = path.join(dir, 'exp.yaml');
fs.writeFileSync(
  config,
  `model: { module: ./model.mjs }
loss: meanSquaredError
data: { train: { type: mnist, count: 100 } }
training: { batchSize: 8 }
optimizer: { name: sgd }
`,
);
const train = (args: string[], env: NodeJS.ProcessEnv) => runCli(['train', config, '--run-dir', path.join(dir, 'run'), ...args], { env });

test('--gpus 0,5 with 2 GPUs: exit 2, names GPU 5, how many are visible and which', () => {
  const { env } = fakeNvidiaSmi(2);
  const r = train(['--gpus', '0,5'], env);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_DEVICES: devices\.gpus asks for GPU 5, but 2 GPUs are visible \(ids 0\.\.1\)/);
  assert.match(r.stderr, /hint: visible: 0: NVIDIA Fake A100, 1: NVIDIA Fake A100/);
  assert.ok(!fs.existsSync(path.join(dir, 'run')), 'a run directory was created');
});

test('the same in the config file, and ids counted after CUDA_VISIBLE_DEVICES', () => {
  const { env } = fakeNvidiaSmi(2);
  let r = train(['--set', 'devices.gpus=[5]'], env);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_DEVICES: devices\.gpus asks for GPU 5, but 2 GPUs are visible/);
  r = train(['--gpus', '1'], { ...env, CUDA_VISIBLE_DEVICES: '1' });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_DEVICES: devices\.gpus asks for GPU 1, but only GPU 0 is visible/);
});

test('no GPU at all (no nvidia-smi, or a failing one): says so and why', () => {
  let r = train(['--gpus', '0'], { ...process.env, PATH: '/usr/bin:/bin' });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_DEVICES: devices\.gpus asks for GPU 0, but no GPU is visible\n\s+hint: nvidia-smi is not on PATH/);
  const failing = fakeNvidiaSmi(0, { fail: 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver' });
  r = train(['--gpus', '0'], failing.env);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /no GPU is visible\n\s+hint: nvidia-smi failed: NVIDIA-SMI has failed because it could not communicate/);
});

test('a GPU listed twice, a malformed --gpus, and --gpus with --simulate', () => {
  const { env } = fakeNvidiaSmi(2);
  let r = train(['--gpus', '1,1'], env);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_CONFIG: devices\.gpus\[1\]: GPU 1 is listed twice/);
  r = train(['--gpus', 'first'], env);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_USAGE: --gpus first: expected "all" or a comma-separated list of GPU ids/);
  r = train(['--gpus', '0', '--simulate', '2'], env);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_CONFIG: devices\.gpus: lists GPUs, but devices\.simulate runs simulated ones/);
});
