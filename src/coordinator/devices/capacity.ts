// How many simulated GPUs this machine can hold. A simulated GPU is a worker process on the
// CPU: tfjs, its backend and a model replica, about 200-220 MiB resident for the MNIST MLP on
// wasm or cpu (measured on the development machine), more for larger models. `--simulate 1000`
// once started ~180 workers in 8 s before the OOM killer stepped in, killing other processes
// too. So N is refused, before any worker starts, when it is more than 4 workers per core or
// more than the available memory holds at a conservative floor per worker, unless
// devices.oversubscribe (--oversubscribe) says to start them anyway; more workers than cores
// is allowed with a warning (they share the cores, and every step waits for the slowest).
import os from 'node:os';
import { MgpuError } from '../../shared/errors.ts';

/** Per simulated worker: a floor, above the ~220 MiB measured for the smallest example. */
export const SIMULATED_WORKER_BYTES = 256 * 2 ** 20;
/** Simulated workers per CPU core before N is refused. */
export const WORKERS_PER_CORE = 4;

export interface Machine {
  cores: number; // os.availableParallelism(): the cores this process may run on
  availableBytes: number; // memory still available to this process (cgroup limits included)
}

export function thisMachine(): Machine {
  const available = typeof process.availableMemory === 'function' ? process.availableMemory() : os.freemem();
  return { cores: Math.max(1, os.availableParallelism()), availableBytes: available };
}

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

/**
 * Checks N simulated GPUs against the machine. Returns a warning to print (more workers than
 * cores), or null; throws E_DEVICES (exit 2) for an N the machine cannot hold, unless
 * `oversubscribe`.
 */
export function checkSimulated(n: number, machine: Machine, oversubscribe: boolean): string | null {
  const { cores, availableBytes } = machine;
  const byCores = WORKERS_PER_CORE * cores;
  const byMemory = Math.floor(availableBytes / SIMULATED_WORKER_BYTES);
  const most = Math.min(byCores, byMemory);
  const hint = `${most >= 1 ? `use --simulate ${most} or fewer` : 'free some memory'}, or pass --oversubscribe (devices.oversubscribe: true) to start them anyway`;
  const coresText = `${cores} CPU core${cores === 1 ? '' : 's'}`;
  if (!oversubscribe && n > byCores) {
    throw new MgpuError(
      'E_DEVICES',
      `devices.simulate ${n}: each simulated GPU is a worker process on the CPU, and ${n} is more than ${WORKERS_PER_CORE} per core on this machine's ${coresText} (at most ${byCores})`,
      { hint },
    );
  }
  if (!oversubscribe && n > byMemory) {
    throw new MgpuError(
      'E_DEVICES',
      `devices.simulate ${n}: ${n} worker processes need at least ${gib(n * SIMULATED_WORKER_BYTES)} of memory (${SIMULATED_WORKER_BYTES / 2 ** 20} MiB each, more for large models); ${gib(availableBytes)} is available`,
      { hint },
    );
  }
  if (n > byMemory)
    return `warning: ${n} simulated GPUs (--oversubscribe) need at least ${gib(n * SIMULATED_WORKER_BYTES)} of memory; ${gib(availableBytes)} is available`;
  if (n > cores) return `warning: ${n} simulated GPUs on ${coresText}: the workers share the cores, and every step waits for the slowest`;
  return null;
}
