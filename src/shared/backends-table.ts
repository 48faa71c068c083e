// One entry per worker backend (devices.backend, --backend): what it computes on, the package it
// loads and how to install it. The config's checks, the CLI's choices, the device plan
// (src/coordinator/devices/device-plan.ts) and the worker's start-up (src/worker/backend.ts, which
// starts each by name) read this table, so adding a backend is one entry here and its start there.
// It imports nothing: the config's types take their names from it.

export interface BackendTraits {
  /**
   * What it computes on: a GPU, the CPU, or (auto) a GPU backend when the machine has one for it
   * (tfjs-node-gpu on CUDA GPUs, webgpu on a hardware adapter), else the best CPU backend.
   */
  kind: 'gpu' | 'cpu' | 'auto';
  /** The npm package that provides it (auto: none of its own). */
  package: string | null;
  /** E_BACKEND's hint when it is not installed or fails to start (auto's: which to choose instead). */
  install: string;
  /** A GPU backend with devices.simulate (simulated GPUs run on a CPU backend): what to do instead; null: choose a CPU backend. */
  insteadOfSimulate: string | null;
}

const BACKEND_TABLE = {
  auto: { kind: 'auto', package: null, install: 'try --backend wasm or --backend cpu', insteadOfSimulate: null },
  'tfjs-node-gpu': {
    kind: 'gpu',
    package: '@tensorflow/tfjs-node-gpu',
    install: 'npm install @tensorflow/tfjs-node-gpu (needs CUDA and cuDNN, see its README)',
    insteadOfSimulate: null,
  },
  webgpu: {
    kind: 'gpu',
    package: '@tensorflow/tfjs-backend-webgpu',
    install: 'npm install webgpu @tensorflow/tfjs-backend-webgpu, and a Vulkan driver (see the README, "GPUs")',
    insteadOfSimulate:
      'set devices.simulate to 0: webgpu runs on the adapters it finds (devices.allowSoftwareAdapter: true for a software one, devices.workersPerGpu: k to share it)',
  },
  'tfjs-node': { kind: 'cpu', package: '@tensorflow/tfjs-node', install: 'npm install @tensorflow/tfjs-node', insteadOfSimulate: null },
  wasm: { kind: 'cpu', package: '@tensorflow/tfjs-backend-wasm', install: 'npm install @tensorflow/tfjs-backend-wasm', insteadOfSimulate: null },
  cpu: { kind: 'cpu', package: '@tensorflow/tfjs', install: 'npm install @tensorflow/tfjs', insteadOfSimulate: null },
} as const satisfies Record<string, BackendTraits>;

export type BackendName = keyof typeof BACKEND_TABLE;
export const BACKENDS: Readonly<Record<BackendName, BackendTraits>> = BACKEND_TABLE;
/** The backends, in the order `auto` prefers them (the order messages and --help list them in). */
export const BACKEND_NAMES = Object.keys(BACKEND_TABLE) as readonly BackendName[];
/** The backends that run on the CPU: those simulated GPUs run on, auto among them (it finds no GPU there). */
export const CPU_BACKEND_NAMES: readonly BackendName[] = BACKEND_NAMES.filter((b) => BACKENDS[b].kind !== 'gpu');
