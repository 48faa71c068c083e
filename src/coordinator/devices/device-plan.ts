// What each worker computes on, decided once by the coordinator before any worker starts:
// the backend (`auto` resolved for the machine), one device per worker, the environment that
// pins a worker to its GPU, and the warnings a user must not miss.
//
// `auto`, per machine: tfjs-node-gpu when nvidia-smi lists GPUs and the package is installed;
// else webgpu when Dawn finds a hardware adapter; else the best CPU backend (the worker picks
// tfjs-node, else wasm, else cpu). Simulated GPUs always run on a CPU backend.
//
// webgpu on NVIDIA GPUs: CUDA_VISIBLE_DEVICES does not reach Vulkan, so each worker is pinned
// through Mesa's device-select layer by its GPU's PCI address (src/shared/adapters.ts), and a
// probe process with that worker's environment checks that the layer chose that GPU. When a
// GPU cannot be pinned the run stops (exit 2) with what was found, unless devices.allowUnpinned.
import os from 'node:os';
import { createRequire } from 'node:module';
import { adapterLabel, checkPinned, pciAddress, pinningEnv, type AdapterInfo } from '../../shared/adapters.ts';
import type { BackendName, Config } from '../../config/types.ts';
import { placeOnThisMachine, type Placement } from '../../shared/cpu-affinity.ts';
import { BACKENDS, CPU_BACKEND_NAMES } from '../../shared/backends-table.ts';
import { MgpuError } from '../../shared/errors.ts';
import { plural } from '../console/progress.ts';
import { discoverGpus, selectDevices, type Discovery, type Gpu, type WorkerDevice } from './devices.ts';
import { probeAdapters, type ProbeOutcome } from './webgpu-probe.ts';

export interface DevicePlan {
  /** The backend every worker is told to start; `auto` only for the CPU choice. */
  backend: BackendName;
  devices: WorkerDevice[]; // one per worker, rank order (workersPerGpu workers per device)
  /** Said once before the header: what was decided where it was not obvious. */
  notes: string[];
  /** Said loudly: GPUs present but unused, workers not pinned. */
  warnings: string[];
  /** Simulated GPUs: which cores the workers run on, for the header; null on GPUs. */
  placement: string | null;
}

/** What the plan reads from the machine; the tests pass fakes. */
export interface PlanProbes {
  discover(): Discovery;
  probe(env: Record<string, string>): Promise<ProbeOutcome>;
  installed(pkg: string): boolean;
  cores(): number;
  /** Cores for n simulated-GPU workers (src/shared/cpu-affinity.ts). */
  place(n: number): Placement;
}

const require = createRequire(import.meta.url);

export const machineProbes: PlanProbes = {
  discover: () => discoverGpus(),
  probe: (env) => probeAdapters(env),
  installed: (pkg) => {
    try {
      require.resolve(`${pkg}/package.json`);
      return true;
    } catch {
      return false;
    }
  },
  cores: () => Math.max(1, os.availableParallelism()),
  place: (n) => placeOnThisMachine(n),
};

/** `auto`'s first choice: tfjs-node-gpu, when there are CUDA GPUs to use and the package is installed. */
export function autoTakesCuda(gpus: number, probes: Pick<PlanProbes, 'installed'>): boolean {
  return gpus > 0 && probes.installed(BACKENDS['tfjs-node-gpu'].package!);
}

/** `auto`'s second choice: webgpu, when Dawn's default adapter is a hardware one (not a CPU). */
export function autoTakesWebgpu(probe: ProbeOutcome): boolean {
  return !!probe.adapter && !probe.adapter.software;
}

/** What the workers are for, as the run says it: "training on 2 simulated GPUs". */
export type Doing = 'training' | 'evaluating' | 'predicting';

export async function planDevices(cfg: Config, doing: Doing = 'training', probes: PlanProbes = machineProbes): Promise<DevicePlan> {
  const d = cfg.devices;
  if (d.simulate > 0)
    return placed(
      { backend: d.backend, devices: selectDevices({ gpus: [], reason: null }, 'all', d.simulate), notes: [], warnings: [], placement: null },
      probes,
    );
  const found = probes.discover();
  // GPU ids are checked against what nvidia-smi shows whatever the backend (E_DEVICES, exit 2).
  const cuda = found.gpus.length || d.gpus !== 'all' ? selectDevices(found, d.gpus, 0) : [];
  const chosen = cuda.map((w) => found.gpus.find((g) => String(g.index) === w.cudaVisibleDevices)!);

  let backend = d.backend;
  let probe: ProbeOutcome | null = null;
  if (backend === 'auto' && autoTakesCuda(cuda.length, probes)) backend = 'tfjs-node-gpu';
  if (backend === 'auto' || backend === 'webgpu') {
    probe = await probes.probe({});
    if (backend === 'webgpu') refuseWithoutAdapter(probe, d.allowSoftwareAdapter);
    else if (autoTakesWebgpu(probe)) backend = 'webgpu';
  }
  if (backend === 'webgpu') return expand(await planWebgpu(cfg, found, chosen, probe!, probes), d.workersPerGpu);

  const plan: DevicePlan = { backend, devices: cuda, notes: [], warnings: [], placement: null };
  if (cuda.length && CPU_BACKEND_NAMES.includes(backend)) {
    plan.warnings.push(unusedGpus(chosen, backend, probe));
    plan.devices = cuda.map((w, i) => ({ ...w, label: `CPU worker (in place of ${w.label})`, simulated: true, cudaVisibleDevices: String(i) }));
  }
  if (plan.devices.length === 0) {
    const n = probes.cores();
    plan.notes.push(
      `no GPU found (${found.reason ?? 'nvidia-smi lists none'}${probe ? `; webgpu: ${whatProbeFound(probe)}` : ''}); ${doing} on ${plural(n, 'simulated GPU')} on the CPU instead (choose with --simulate N)`,
    );
    plan.devices = selectDevices(found, 'all', n);
  }
  return placed(expand(plan, d.workersPerGpu), probes);
}

/** Simulated GPUs compute on the CPU: each gets a physical core of its own where there are enough. */
function placed(plan: DevicePlan, probes: PlanProbes): DevicePlan {
  if (!plan.devices.every((dev) => dev.simulated)) return plan;
  const p = probes.place(plan.devices.length);
  const devices = plan.devices.map((dev, r) => {
    const cpus = p.workers[r];
    return cpus ? { ...dev, env: { ...dev.env, MGPU_CPUS: cpus.join(',') } } : dev;
  });
  return { ...plan, devices, placement: p.text };
}

/** An explicit `backend: webgpu` with no adapter, or only a software one it may not use: exit 2. */
function refuseWithoutAdapter(probe: ProbeOutcome, allowSoftware: boolean): void {
  if (!probe.adapter) {
    throw new MgpuError('E_BACKEND', `devices.backend is webgpu, but ${whatProbeFound(probe)}`, {
      hint: probe.loaded
        ? "check `vulkaninfo --summary`: NVIDIA GPUs need the driver's Vulkan ICD (e.g. libnvidia-gl); without a GPU, install lavapipe (mesa-vulkan-drivers) and set devices.allowSoftwareAdapter: true"
        : 'npm install webgpu @tensorflow/tfjs-backend-webgpu (Dawn ships binaries for linux-x64/arm64, macOS and Windows)',
    });
  }
  if (probe.adapter.software && !allowSoftware) {
    throw new MgpuError(
      'E_BACKEND',
      `devices.backend is webgpu, but the only adapter is a software one: ${adapterLabel(probe.adapter)}, a CPU rather than a GPU`,
      {
        hint: 'set devices.allowSoftwareAdapter: true to train on it anyway (for tests), or choose --backend wasm',
      },
    );
  }
}

function whatProbeFound(p: ProbeOutcome): string {
  if (!p.loaded || !p.adapter) return p.error ?? 'no adapter';
  const others = p.adapters.length > 1 ? ` (Dawn lists ${p.adapters.map((a) => `${a.name} [${a.backend}]`).join(', ')})` : '';
  return `${p.adapter.software ? 'only a software adapter' : 'an adapter'}: ${adapterLabel(p.adapter)}${others}`;
}

function unusedGpus(gpus: Gpu[], backend: BackendName, probe: ProbeOutcome | null): string {
  const what = gpus.map((g) => g.name).join(', ');
  const why =
    backend === 'auto'
      ? `no GPU backend works here: tfjs-node-gpu is not installed; webgpu: ${probe ? whatProbeFound(probe) : 'not tried'}`
      : `devices.backend is ${backend}`;
  const fix =
    backend !== 'auto'
      ? 'run with --backend webgpu (or --backend auto)'
      : probe && !probe.loaded
        ? 'npm install webgpu @tensorflow/tfjs-backend-webgpu'
        : "install the NVIDIA driver's Vulkan ICD (check with `vulkaninfo --summary`), or npm install @tensorflow/tfjs-node-gpu (CUDA 11.2)";
  return `GPUs PRESENT BUT UNUSED: ${gpus.length} GPU(s) (${what}) are visible, but this run computes on the CPU, because ${why}. Fix: ${fix}`;
}

/** One webgpu device per chosen GPU, each pinned and checked; or the one default adapter. */
async function planWebgpu(cfg: Config, found: Discovery, chosen: Gpu[], probe: ProbeOutcome, probes: PlanProbes): Promise<DevicePlan> {
  const adapter = probe.adapter!;
  const notes: string[] = [];
  const hardware = vulkanAdapters(probe).filter((a) => !/llvmpipe|lavapipe|swiftshader/i.test(a.name));
  if (chosen.length === 0) {
    // No NVIDIA GPU: the adapter Dawn gives by default (a software one when allowed, or another
    // vendor's GPU). Others cannot be told apart without PCI addresses, so only one is used.
    if (cfg.devices.gpus !== 'all' && (cfg.devices.gpus.length !== 1 || cfg.devices.gpus[0] !== 0)) {
      throw new MgpuError(
        'E_DEVICES',
        `devices.gpus asks for GPU(s) ${cfg.devices.gpus.join(', ')}, but webgpu without nvidia-smi can use only the default adapter (GPU 0): ${adapterLabel(adapter)}`,
        {
          hint: 'remove devices.gpus (or set it to [0]); devices.workersPerGpu: k puts k workers on it',
        },
      );
    }
    if (hardware.length > 1)
      notes.push(
        `webgpu: Dawn lists ${hardware.length} GPUs but only the default one is used (${adapterLabel(adapter)}): pinning by PCI address needs nvidia-smi`,
      );
    return { backend: 'webgpu', devices: [webgpuDevice('0', `adapter 0`, {}, adapter)], notes, warnings: [], placement: null };
  }
  // One NVIDIA GPU on a machine whose Vulkan shows one: nothing to choose between.
  if (chosen.length === 1 && hardware.length <= 1 && !adapter.software) {
    const g = chosen[0]!;
    return { backend: 'webgpu', devices: [webgpuDevice(String(g.index), gpuLabel(found, g), {}, adapter)], notes, warnings: [], placement: null };
  }
  const pinned = await Promise.all(
    chosen.map(async (g) => {
      const env = g.pciBusId ? pinningEnv(g.pciBusId) : null;
      if (!env) return { g, why: `nvidia-smi gave no usable PCI bus id (${g.pciBusId ?? 'none'})` };
      const p = await probes.probe(env);
      if (!p.adapter) return { g, why: `no adapter with that choice (${p.error ?? 'none'})` };
      const check = checkPinned(p.deviceSelect, g.pciBusId!);
      if (!check.ok) return { g, why: check.why };
      if (vulkanAdapters(p).length !== 1)
        return {
          g,
          why: `the layer chose it but Dawn still lists ${vulkanAdapters(p)
            .map((a) => a.name)
            .join(', ')}`,
        };
      return { g, env, adapter: p.adapter };
    }),
  );
  const failed = pinned.filter((p) => !('adapter' in p));
  if (failed.length === 0) {
    return {
      backend: 'webgpu',
      notes,
      warnings: [],
      placement: null,
      devices: pinned.map((p) =>
        'adapter' in p
          ? webgpuDevice(String(p.g.index), `${gpuLabel(found, p.g)}, Vulkan device at ${pciAddress(p.g.pciBusId!)!.short}`, p.env!, p.adapter!)
          : null!,
      ),
    };
  }
  const what = failed.map((f) => `GPU ${found.gpus.indexOf(f.g)} (${f.g.name}, PCI ${f.g.pciBusId ?? '?'}): ${'why' in f ? f.why : ''}`).join('; ');
  if (!cfg.devices.allowUnpinned) {
    throw new MgpuError('E_DEVICES', `webgpu cannot pin each worker to its own GPU: ${what}`, {
      hint: "install Mesa's Vulkan device-select layer (Debian/Ubuntu: mesa-vulkan-drivers, 24.x or newer), or set devices.allowUnpinned: true to share the default GPU between all workers",
    });
  }
  return {
    backend: 'webgpu',
    notes,
    placement: null,
    warnings: [`WORKERS NOT PINNED: every worker computes on the default adapter (${adapterLabel(adapter)}), because ${what}; devices.allowUnpinned is set`],
    devices: chosen.map((g) => webgpuDevice(String(g.index), `${gpuLabel(found, g)} (unpinned: default adapter)`, {}, null)),
  };
}

function vulkanAdapters(p: ProbeOutcome): { backend: string; name: string }[] {
  const vulkan = p.adapters.filter((a) => a.backend === 'vulkan');
  return vulkan.length ? vulkan : p.adapters;
}

function gpuLabel(found: Discovery, g: Gpu): string {
  return `GPU ${found.gpus.indexOf(g)} ${g.name} (${g.memoryMiB} MiB)`;
}

function webgpuDevice(cudaVisibleDevices: string, label: string, env: Record<string, string>, adapter: AdapterInfo | null): WorkerDevice {
  return { cudaVisibleDevices, label, simulated: false, env, expectAdapter: adapter ? adapterLabel(adapter) : null };
}

/** k workers on each device, in device order: ranks d*k .. d*k+k-1 share device d. */
function expand(plan: DevicePlan, k: number): DevicePlan {
  if (k === 1) return plan;
  return { ...plan, devices: plan.devices.flatMap((dev) => Array.from({ length: k }, (_, j) => ({ ...dev, label: `${dev.label}, worker ${j + 1} of ${k}` }))) };
}
