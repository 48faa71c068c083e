import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/run-cli.ts';
import { fakeNvidiaSmi } from '../helpers/fake-nvidia-smi.ts';

test('devices lists the GPUs nvidia-smi reports, after CUDA_VISIBLE_DEVICES', () => {
  const { env } = fakeNvidiaSmi(3);
  const r = runCli(['devices'], { env: { ...env, CUDA_VISIBLE_DEVICES: '2,0' } });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^GPU 0: NVIDIA Fake A100, 40960 MiB \(nvidia-smi index 2, .*PCI 00000000:1b:00.0\)/m);
  assert.match(r.stdout, /^GPU 1: .*nvidia-smi index 0/m);
  assert.doesNotMatch(r.stdout, /index 1/);
});

test('devices says why there is no GPU', () => {
  const r = runCli(['devices'], { env: { ...process.env, PATH: '/usr/bin:/bin' } });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /nvidia-smi: no GPU \(nvidia-smi is not on PATH/);
  assert.match(r.stdout, /^webgpu: /m);
  assert.match(r.stdout, /backend auto: no GPU backend here; .*--simulate N/);
});
