// Which GPUs this run can use. The coordinator itself never loads CUDA: it asks nvidia-smi,
// then narrows the list the way CUDA would, by the CUDA_VISIBLE_DEVICES the user already set.
import { execFileSync } from 'node:child_process';
import { MgpuError } from '../../shared/errors.ts';

export interface Gpu {
  index: number; // as nvidia-smi numbers it
  uuid: string;
  name: string;
  memoryMiB: number;
  pciBusId: string | null; // "00000000:19:00.0": how a Vulkan worker is pinned to it
}

export interface Discovery {
  gpus: Gpu[]; // the visible ones, in CUDA_VISIBLE_DEVICES order
  reason: string | null; // why the list is empty
}

/** One worker's device: what its CUDA_VISIBLE_DEVICES will say, and what to print. */
export interface WorkerDevice {
  cudaVisibleDevices: string;
  label: string;
  simulated: boolean;
  /** More environment for the worker: the Vulkan device-select layer's choice, for webgpu. */
  env: Record<string, string>;
  /** webgpu: the adapter description the worker must report (the pinning is checked), or null. */
  expectAdapter: string | null;
}

function querySmi(): { gpus: Gpu[]; reason: string | null } {
  let out: string;
  try {
    out = execFileSync('nvidia-smi', ['--query-gpu=index,uuid,name,memory.total,pci.bus_id', '--format=csv,noheader,nounits'], {
      encoding: 'utf8',
      timeout: 15_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') return { gpus: [], reason: 'nvidia-smi is not on PATH (no NVIDIA driver installed)' };
    return { gpus: [], reason: `nvidia-smi failed: ${(e.stderr || e.message).trim().split('\n')[0]}` };
  }
  const gpus = out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [index, uuid, name, mem, bus] = line.split(',').map((s) => s.trim());
      return { index: Number(index), uuid: uuid ?? '', name: name ?? '', memoryMiB: Number(mem), pciBusId: bus || null };
    })
    .filter((g) => Number.isInteger(g.index));
  return { gpus, reason: gpus.length ? null : 'nvidia-smi lists no GPU' };
}

export function discoverGpus(env: NodeJS.ProcessEnv = process.env): Discovery {
  const smi = querySmi();
  const visible = env.CUDA_VISIBLE_DEVICES;
  if (visible === undefined || smi.gpus.length === 0) return smi;
  if (visible.trim() === '' || visible.trim() === '-1') {
    return { gpus: [], reason: `CUDA_VISIBLE_DEVICES="${visible}" hides every GPU` };
  }
  // CUDA's rule: entries are indices or UUID prefixes; the list ends at the first invalid one.
  const gpus: Gpu[] = [];
  for (const entry of visible.split(',').map((s) => s.trim())) {
    const g = /^\d+$/.test(entry)
      ? smi.gpus.find((x) => x.index === Number(entry))
      : smi.gpus.find((x) => x.uuid.startsWith(entry) || x.uuid.startsWith(`GPU-${entry}`));
    if (!g) break;
    gpus.push(g);
  }
  return { gpus, reason: gpus.length ? null : `CUDA_VISIBLE_DEVICES="${visible}" names no GPU that nvidia-smi lists` };
}

/** The workers to start: one per selected GPU, or `simulate` simulated ones. */
export function selectDevices(discovery: Discovery, gpus: 'all' | number[], simulate: number): WorkerDevice[] {
  if (simulate > 0) {
    return Array.from({ length: simulate }, (_, i) => ({
      cudaVisibleDevices: String(i),
      label: `simulated GPU ${i} (CPU)`,
      simulated: true,
      env: {},
      expectAdapter: null,
    }));
  }
  const visible = discovery.gpus;
  const chosen = gpus === 'all' ? visible.map((_, i) => i) : gpus;
  for (const id of chosen) {
    if (id >= visible.length) {
      throw new MgpuError(
        'E_DEVICES',
        `devices.gpus asks for GPU ${id}, but ${visible.length ? (visible.length === 1 ? 'only GPU 0 is visible' : `${visible.length} GPUs are visible (ids 0..${visible.length - 1})`) : 'no GPU is visible'}`,
        {
          hint: visible.length ? `visible: ${visible.map((g, i) => `${i}: ${g.name}`).join(', ')}` : (discovery.reason ?? undefined),
        },
      );
    }
  }
  return chosen.map((id) => {
    const g = visible[id]!;
    // Pin by the physical id nvidia-smi gave, so the worker sees exactly that one GPU as GPU 0.
    return { cudaVisibleDevices: String(g.index), label: `GPU ${id} ${g.name} (${g.memoryMiB} MiB)`, simulated: false, env: {}, expectAdapter: null };
  });
}
