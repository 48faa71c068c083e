import { test } from 'node:test';
import assert from 'node:assert/strict';
import { discoverGpus, selectDevices } from '../../src/coordinator/devices/devices.ts';
import { fakeNvidiaSmi } from '../helpers/fake-nvidia-smi.ts';

// discoverGpus runs nvidia-smi from PATH, so each test swaps PATH for its duration.
function withEnv<T>(env: NodeJS.ProcessEnv, fn: () => T): T {
  const saved = process.env.PATH;
  process.env.PATH = env.PATH;
  try {
    return fn();
  } finally {
    process.env.PATH = saved;
  }
}

test('lists every GPU nvidia-smi reports', () => {
  const { env } = fakeNvidiaSmi(4);
  const found = withEnv(env, () => discoverGpus({}));
  assert.equal(found.gpus.length, 4);
  assert.equal(found.gpus[2]!.name, 'NVIDIA Fake A100');
  assert.equal(found.gpus[2]!.memoryMiB, 40960);
  assert.equal(found.reason, null);
});

test('honours a CUDA_VISIBLE_DEVICES the user set, by index or UUID, in its order', () => {
  const { env } = fakeNvidiaSmi(4);
  const byIndex = withEnv(env, () => discoverGpus({ CUDA_VISIBLE_DEVICES: '3,1' }));
  assert.deepEqual(
    byIndex.gpus.map((g) => g.index),
    [3, 1],
  );
  const byUuid = withEnv(env, () => discoverGpus({ CUDA_VISIBLE_DEVICES: 'GPU-00000002' }));
  assert.deepEqual(
    byUuid.gpus.map((g) => g.index),
    [2],
  );
  // CUDA stops at the first invalid entry.
  const cut = withEnv(env, () => discoverGpus({ CUDA_VISIBLE_DEVICES: '0,9,1' }));
  assert.deepEqual(
    cut.gpus.map((g) => g.index),
    [0],
  );
  const none = withEnv(env, () => discoverGpus({ CUDA_VISIBLE_DEVICES: '' }));
  assert.equal(none.gpus.length, 0);
  assert.match(none.reason!, /hides every GPU/);
});

test('workers are pinned by the physical index of the GPU they get', () => {
  const { env } = fakeNvidiaSmi(4);
  const found = withEnv(env, () => discoverGpus({ CUDA_VISIBLE_DEVICES: '2,3' }));
  const devices = selectDevices(found, [1], 0);
  assert.deepEqual(
    devices.map((d) => d.cudaVisibleDevices),
    ['3'],
  );
  assert.equal(devices[0]!.simulated, false);
});

test('a GPU id that does not exist is an E_DEVICES error naming it and what exists', () => {
  const { env } = fakeNvidiaSmi(2);
  const found = withEnv(env, () => discoverGpus({}));
  assert.throws(
    () => selectDevices(found, [0, 5], 0),
    (e: Error & { code?: string; hint?: string }) =>
      e.code === 'E_DEVICES' && /asks for GPU 5, but 2 GPUs are visible/.test(e.message) && /0: NVIDIA Fake A100/.test(e.hint ?? ''),
  );
});

test('no nvidia-smi, or a failing one, gives an empty list and the reason', () => {
  const missing = withEnv({ PATH: '/nonexistent' }, () => discoverGpus({}));
  assert.equal(missing.gpus.length, 0);
  assert.match(missing.reason!, /nvidia-smi is not on PATH/);
  const { env } = fakeNvidiaSmi(0, { fail: 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver' });
  const failing = withEnv(env, () => discoverGpus({}));
  assert.match(failing.reason!, /could not communicate with the NVIDIA driver/);
});

test('simulated devices get CUDA_VISIBLE_DEVICES like real ones and are marked simulated', () => {
  const devices = selectDevices({ gpus: [], reason: 'none' }, 'all', 3);
  assert.deepEqual(
    devices.map((d) => d.cudaVisibleDevices),
    ['0', '1', '2'],
  );
  assert.ok(devices.every((d) => d.simulated));
});
