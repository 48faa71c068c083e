// The device plan with a fake machine: which backend `auto` resolves to, how many workers on
// what, how webgpu workers are pinned (and refused when they cannot be), and the loud warning
// when GPUs are present but unused. No process is started: the probes are fakes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { planDevices, type PlanProbes } from '../../src/coordinator/devices/device-plan.ts';
import type { Discovery } from '../../src/coordinator/devices/devices.ts';
import type { ProbeOutcome } from '../../src/coordinator/devices/webgpu-probe.ts';
import { validateConfig } from '../../src/config/validate.ts';

const H200 = { vendor: 'nvidia', architecture: 'hopper', device: '0x2335', description: 'NVIDIA H200', software: false };
const LAVAPIPE = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe', description: 'llvmpipe: Mesa 25.0.7', software: true };
const BUSES = ['00000000:19:00.0', '00000000:3B:00.0', '00000000:4C:00.0'];

function gpus(n: number): Discovery {
  return {
    gpus: Array.from({ length: n }, (_, i) => ({ index: i, uuid: `GPU-${i}`, name: 'NVIDIA H200', memoryMiB: 143771, pciBusId: BUSES[i]! })),
    reason: n ? null : 'nvidia-smi is not on PATH',
  };
}

/** A device-select layer over `n` H200s that honours the PCI tag (or, `wrong`, always picks GPU 0). */
function layerProbe(n: number, opts: { layer?: boolean; wrong?: boolean } = {}) {
  const calls: Record<string, string>[] = [];
  const probe = async (env: Record<string, string>): Promise<ProbeOutcome> => {
    calls.push(env);
    const all = Array.from({ length: n }, (_, i) => ({ backend: 'vulkan', name: 'NVIDIA H200', bus: BUSES[i]!.slice(4).toLowerCase() }));
    const list = `selectable devices:\n${all.map((d, i) => `  GPU ${i}: 10de:2335 "NVIDIA H200" discrete GPU ${d.bus}`).join('\n')}\n`;
    const tag = env.DRI_PRIME;
    const chosen = tag ? (opts.wrong ? 0 : all.findIndex((d) => `pci-${d.bus.replace(/[:.]/g, '_')}` === tag)) : -1;
    const pinned = chosen >= 0 && opts.layer !== false;
    return {
      loaded: true,
      error: null,
      adapter: H200,
      adapters: pinned ? [all[chosen]!] : all,
      deviceSelect:
        opts.layer === false
          ? null
          : {
              ...(await import('../../src/shared/adapters.ts')).parseDeviceSelectDebug(list)!,
              ...(chosen >= 0 ? { rule: 'dri_prime_tag_default', selected: chosen } : {}),
            },
    };
  };
  return { calls, probe };
}

function probes(found: Discovery, probe: PlanProbes['probe'], installed: string[] = []): PlanProbes {
  return {
    discover: () => found,
    probe,
    installed: (p) => installed.includes(p),
    cores: () => 2,
    place: (n) => ({ workers: Array(n).fill(null), text: 'not pinned (fake)' }),
  };
}
const cfg = (devices: Record<string, unknown> = {}) =>
  validateConfig(
    {
      model: { module: fileURLToPath(import.meta.url) },
      loss: 'meanSquaredError',
      data: { train: { type: 'mnist', count: 10 } },
      training: { batchSize: 4 },
      optimizer: { name: 'sgd' },
      devices,
    },
    { configPath: null, cwd: '/' },
  );
const software = async (): Promise<ProbeOutcome> => ({
  loaded: true,
  error: null,
  adapter: LAVAPIPE,
  adapters: [{ backend: 'vulkan', name: 'llvmpipe' }],
  deviceSelect: null,
});
const noDawn = async (): Promise<ProbeOutcome> => ({
  loaded: false,
  error: 'the webgpu package did not load: no dawn.node for this platform',
  adapter: null,
  adapters: [],
  deviceSelect: null,
});

test('auto with tfjs-node-gpu installed and GPUs: tfjs-node-gpu, one worker per GPU, no probe', async () => {
  const l = layerProbe(2);
  const plan = await planDevices(cfg(), 'training', probes(gpus(2), l.probe, ['@tensorflow/tfjs-node-gpu']));
  assert.equal(plan.backend, 'tfjs-node-gpu');
  assert.deepEqual(
    plan.devices.map((d) => d.cudaVisibleDevices),
    ['0', '1'],
  );
  assert.equal(l.calls.length, 0);
});

test('auto with tfjs-node-gpu installed but no GPU: not tfjs-node-gpu; webgpu is probed, and the CPU takes the workers', async () => {
  let probed = 0;
  const counted: PlanProbes['probe'] = async () => (probed++, software());
  const plan = await planDevices(cfg(), 'training', probes(gpus(0), counted, ['@tensorflow/tfjs-node-gpu']));
  assert.equal(plan.backend, 'auto');
  assert.equal(probed, 1);
  assert.deepEqual(
    plan.devices.map((d) => d.simulated),
    [true, true],
  );
});

test('auto with GPUs and a hardware webgpu adapter: webgpu, each worker pinned by PCI address and checked', async () => {
  const l = layerProbe(3);
  const plan = await planDevices(cfg({ gpus: [2, 0] }), 'training', probes(gpus(3), l.probe));
  assert.equal(plan.backend, 'webgpu');
  assert.deepEqual(
    plan.devices.map((d) => d.env.DRI_PRIME),
    ['pci-0000_4c_00_0', 'pci-0000_19_00_0'],
  );
  assert.ok(plan.devices.every((d) => d.env.MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE === '1' && d.expectAdapter === 'NVIDIA H200'));
  assert.match(plan.devices[0]!.label, /GPU 2 NVIDIA H200 .*Vulkan device at 0000:4c:00.0/);
  assert.deepEqual(plan.warnings, []);
});

test('workersPerGpu: k workers on each pinned GPU, in GPU order', async () => {
  const plan = await planDevices(cfg({ backend: 'webgpu', workersPerGpu: 2 }), 'training', probes(gpus(2), layerProbe(2).probe));
  assert.deepEqual(
    plan.devices.map((d) => d.env.DRI_PRIME),
    ['pci-0000_19_00_0', 'pci-0000_19_00_0', 'pci-0000_3b_00_0', 'pci-0000_3b_00_0'],
  );
  assert.match(plan.devices[1]!.label, /worker 2 of 2/);
});

test('webgpu on several GPUs without the device-select layer: exit 2 naming each GPU, or unpinned when allowed', async () => {
  const l = layerProbe(2, { layer: false });
  await assert.rejects(
    planDevices(cfg({ backend: 'webgpu' }), 'training', probes(gpus(2), l.probe)),
    (e: Error & { code?: string; exitCode?: number; hint?: string }) =>
      e.code === 'E_DEVICES' &&
      e.exitCode === 2 &&
      /cannot pin each worker to its own GPU: GPU 0 \(NVIDIA H200, PCI 00000000:19:00.0\): the Vulkan device-select layer printed nothing/.test(e.message) &&
      /mesa-vulkan-drivers/.test(e.hint ?? ''),
  );
  const plan = await planDevices(cfg({ backend: 'webgpu', allowUnpinned: true }), 'training', probes(gpus(2), l.probe));
  assert.equal(plan.devices.length, 2);
  assert.ok(plan.devices.every((d) => Object.keys(d.env).length === 0 && d.expectAdapter === null));
  assert.match(plan.warnings[0]!, /WORKERS NOT PINNED/);
});

test('webgpu where the layer chose another GPU than asked: refused', async () => {
  await assert.rejects(
    planDevices(cfg({ backend: 'webgpu' }), 'training', probes(gpus(2), layerProbe(2, { wrong: true }).probe)),
    (e: Error & { code?: string }) =>
      e.code === 'E_DEVICES' && /GPU 1 .*chose device 0 by rule dri_prime_tag_default, not NVIDIA H200 at 0000:3b:00.0/.test(e.message),
  );
});

test('auto with GPUs but no GPU backend: CPU workers and a loud warning with the fix', async () => {
  const plan = await planDevices(cfg(), 'training', probes(gpus(2), noDawn));
  assert.equal(plan.backend, 'auto');
  assert.equal(plan.devices.length, 2);
  assert.ok(plan.devices.every((d) => d.simulated && /CPU worker \(in place of GPU \d NVIDIA H200/.test(d.label)));
  assert.match(
    plan.warnings[0]!,
    /GPUs PRESENT BUT UNUSED: 2 GPU\(s\) \(NVIDIA H200, NVIDIA H200\).*webgpu: the webgpu package did not load.*Fix: npm install webgpu/,
  );
  const wasm = await planDevices(cfg({ backend: 'wasm' }), 'training', probes(gpus(1), noDawn));
  assert.match(wasm.warnings[0]!, /devices\.backend is wasm\. Fix: run with --backend webgpu/);
});

test('auto with no GPU and only a software adapter: simulated GPUs on the cores, saying why', async () => {
  const plan = await planDevices(cfg(), 'training', probes(gpus(0), software));
  assert.equal(plan.backend, 'auto');
  assert.equal(plan.devices.length, 2);
  assert.match(plan.notes[0]!, /no GPU found .*webgpu: only a software adapter: llvmpipe: Mesa 25.0.7 \(software\).*2 simulated GPUs/);
});

test('backend webgpu with only a software adapter: exit 2 unless allowSoftwareAdapter; then k workers share it', async () => {
  await assert.rejects(
    planDevices(cfg({ backend: 'webgpu' }), 'training', probes(gpus(0), software)),
    (e: Error & { code?: string; exitCode?: number; hint?: string }) =>
      e.code === 'E_BACKEND' && e.exitCode === 2 && /only adapter is a software one: llvmpipe/.test(e.message) && /allowSoftwareAdapter/.test(e.hint ?? ''),
  );
  const plan = await planDevices(cfg({ backend: 'webgpu', allowSoftwareAdapter: true, workersPerGpu: 3 }), 'training', probes(gpus(0), software));
  assert.equal(plan.devices.length, 3);
  assert.ok(plan.devices.every((d) => d.expectAdapter === 'llvmpipe: Mesa 25.0.7 (software)'));
  await assert.rejects(
    planDevices(cfg({ backend: 'webgpu' }), 'training', probes(gpus(0), noDawn)),
    /devices\.backend is webgpu, but the webgpu package did not load/,
  );
});
