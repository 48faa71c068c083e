// Where simulated-GPU workers run: each on a physical core of its own, when the machine has
// enough, and the coordinator on one that no worker takes. A step waits for its slowest worker,
// and two workers that the OS lets share a core (or a core's two hyperthreads) are the slowest.
//
// The coordinator reads the topology and gives each worker its CPUs in MGPU_CPUS; the worker pins
// all of its threads there at start (native/src/affinity.c, Linux only). Where the addon is
// missing the workers are left to the OS, and the run header says why.
import fs from 'node:fs';
import path from 'node:path';
import { loadAddon } from './native-addon.ts';

interface AffinityAddon {
  pinProcess(cpus: number[]): number;
  allowedCpus(): number[];
}

export let affinityUnavailableReason: string | null = null;
let loaded: AffinityAddon | null | undefined;

export function loadAffinity(): AffinityAddon | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== 'linux') {
    affinityUnavailableReason = 'pinning to cores is Linux-only';
    return null;
  }
  const got = loadAddon<AffinityAddon>('mgpu_affinity', 'affinity', ['pinProcess', 'allowedCpus']);
  if (!got.addon) affinityUnavailableReason = got.reason;
  loaded = got.addon;
  return loaded;
}

/**
 * The physical cores among `allowed` logical CPUs: the CPUs grouped by (package, core id), each
 * group sorted, the groups in order of their first CPU. Unknown topology: one core per CPU.
 */
export function physicalCores(allowed: number[], sysRoot = '/sys/devices/system/cpu'): number[][] {
  const groups = new Map<string, number[]>();
  for (const cpu of [...allowed].sort((a, b) => a - b)) {
    const read = (f: string) => {
      try {
        return fs.readFileSync(path.join(sysRoot, `cpu${cpu}`, 'topology', f), 'utf8').trim();
      } catch {
        return null;
      }
    };
    const core = read('core_id');
    const key = core === null ? `cpu${cpu}` : `${read('physical_package_id') ?? 0}:${core}`;
    groups.set(key, [...(groups.get(key) ?? []), cpu]);
  }
  return [...groups.values()];
}

export interface Placement {
  workers: (number[] | null)[]; // the CPUs of each worker's core, or null: left to the OS
  text: string; // for the run header
}

const list = (cpus: number[]) => `cpu${cpus.length > 1 ? 's' : ''} ${cpus.join(',')}`;

/**
 * n workers over these cores: a core each and core 0 left to the coordinator, when there are
 * n + 1 cores. With fewer, nothing is pinned: a pinned worker could not move off the core the
 * coordinator works on, and on a 2-core machine 2 pinned workers ran at half the speed of 2 free
 * ones (docs/performance.md), so the OS balances them.
 */
export function placeWorkers(n: number, cores: number[][], unavailable: string | null = null): Placement {
  const none = (why: string): Placement => ({ workers: new Array<number[] | null>(n).fill(null), text: `not pinned: ${why}` });
  if (unavailable) return none(unavailable);
  if (cores.length < n + 1)
    return none(`${n} worker${n === 1 ? '' : 's'} and the coordinator on ${cores.length} physical core${cores.length === 1 ? '' : 's'}; the OS balances them`);
  const workers = Array.from({ length: n }, (_, r) => cores[r + 1]!);
  return {
    workers,
    text: `a physical core each: ${workers.map((c, r) => `rank ${r} ${list(c)}`).join(', ')}; coordinator core 0 (${list(cores[0]!)}) to itself`,
  };
}

/** The placement of n simulated-GPU workers on this machine; MGPU_PIN_CORES=0 leaves them to the OS. */
export function placeOnThisMachine(n: number, env: NodeJS.ProcessEnv = process.env): Placement {
  if (/^(0|false|off|no)$/i.test(env.MGPU_PIN_CORES ?? '')) return placeWorkers(n, [], `turned off by MGPU_PIN_CORES=${env.MGPU_PIN_CORES}`);
  const addon = loadAffinity();
  if (!addon) return placeWorkers(n, [], affinityUnavailableReason);
  return placeWorkers(n, physicalCores(addon.allowedCpus()));
}

/** In a worker: pin every thread to MGPU_CPUS when the coordinator gave it; returns what happened. */
export function pinFromEnvironment(env: NodeJS.ProcessEnv = process.env): string | null {
  const spec = env.MGPU_CPUS;
  if (!spec) return null;
  const addon = loadAffinity();
  if (!addon) return `MGPU_CPUS=${spec} not applied: ${affinityUnavailableReason}`;
  const cpus = spec.split(',').map(Number);
  try {
    addon.pinProcess(cpus);
    return null;
  } catch (err) {
    return `MGPU_CPUS=${spec} not applied: ${(err as Error).message}`;
  }
}
