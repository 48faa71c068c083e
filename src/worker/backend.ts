// Picks and starts the worker's tfjs backend. The coordinator has already decided whether this
// run uses a GPU (src/coordinator/devices/device-plan.ts) and passes the backend by name; `auto` here
// means the best CPU backend: tfjs-node when installed, else wasm (SIMD; ships its binary in the
// npm package), else the pure-JS cpu backend. tfjs-node(-gpu) are optional peers: they download
// libtensorflow at install time, so a plain `npm install` never depends on them. webgpu (Dawn's
// Node binding) is a dependency; on a platform without its prebuilt binary it fails to load here.
import { BACKENDS, type BackendName } from '../shared/backends-table.ts';
import { adapterInfoOf, type AdapterInfo } from '../shared/adapters.ts';
import { MgpuError } from '../shared/errors.ts';
import { registerCpuKernels } from './cpu-kernels/index.ts';
import { fuseBatchNormalization } from './fused-batch-norm.ts';
import { fuseReluLayer } from './fused-relu-layer.ts';
import { fuseRelu6 } from './fused-relu6.ts';
import { registerWasmGradKernels } from './wasm-kernels/index.ts';

export type TF = typeof import('@tensorflow/tfjs');

export interface LoadedBackend {
  tf: TF;
  name: string; // what tf.getBackend() reports, with the package it came from
  /** webgpu: the adapter this process computes on. */
  adapter: AdapterInfo | null;
}

async function tryNative(pkg: '@tensorflow/tfjs-node-gpu' | '@tensorflow/tfjs-node'): Promise<TF | null> {
  try {
    const mod = (await import(pkg)) as { default?: TF } & TF;
    return mod.default ?? mod;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return null;
    throw err;
  }
}

export interface BackendOptions {
  /** wasm: replace its slow or wrong kernels too (not only add the missing ones). Default true. */
  replaceWasmKernels?: boolean;
  /** webgpu: accept a software adapter (lavapipe, SwiftShader). Default false. */
  allowSoftwareAdapter?: boolean;
}

async function startJs(backend: 'wasm' | 'cpu', opts: BackendOptions): Promise<TF> {
  const tf = (await import('@tensorflow/tfjs')) as TF;
  if (backend === 'wasm') await import('@tensorflow/tfjs-backend-wasm');
  if (!(await tf.setBackend(backend))) throw new Error(`tf.setBackend('${backend}') returned false`);
  await tf.ready();
  // The wasm backend lacks the gradient kernels of convolutions, has a wrong MaxPoolGrad and a
  // slow matmul with transposed operands.
  if (backend === 'wasm') {
    const replace = opts.replaceWasmKernels ?? true;
    registerWasmGradKernels(tf, {
      replaceMaxPoolGrad: replace,
      replaceConv2DBackpropInput: replace,
      replaceBatchMatMul: replace,
      replaceCopyKernels: replace,
      replaceElementwise: replace,
      replaceConvolutions: replace,
      fusedBatchNorm: replace,
    });
  }
  // Every BatchNormalization layer of this tf, however the model was built, asks for the fused
  // kernels just registered (and is tfjs's own where they are not).
  fuseBatchNormalization(tf);
  // Every ReLU6 activation likewise (MobileNet's), and every ReLU layer with a ceiling (Keras's
  // MobileNetV2's ReLU(6.)): one kernel each way where wasm has them.
  fuseRelu6(tf);
  fuseReluLayer(tf);
  // The cpu backend's ResizeNearestNeighborGrad is wrong for batches of more than one image.
  if (backend === 'cpu') registerCpuKernels(tf);
  return tf;
}

/**
 * Dawn in this process, as `navigator.gpu` (where tfjs-backend-webgpu looks for it), and the
 * adapter it gives by default: on a pinned worker the only one the Vulkan loader shows. Also used
 * by the GPU check and the tests. `release()` lets the process exit (Dawn holds it open).
 */
export async function installDawn(): Promise<{ adapter: AdapterInfo | null; release: () => void }> {
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const gpu = create([]);
  Object.defineProperty(globalThis, 'navigator', { value: { gpu, userAgent: `Node.js/${process.version}` }, configurable: true, writable: true });
  const found = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  const release = () => {
    delete (globalThis as { navigator?: unknown }).navigator;
  };
  if (!found) return { adapter: null, release };
  return { adapter: adapterInfoOf(found.info), release };
}

async function startWebgpu(opts: BackendOptions): Promise<{ tf: TF; adapter: AdapterInfo }> {
  const { adapter } = await installDawn();
  if (!adapter) {
    throw new MgpuError('E_BACKEND', 'webgpu: Dawn found no adapter (no Vulkan driver, or it failed to start)', {
      hint: 'check `vulkaninfo --summary`; on NVIDIA the Vulkan ICD comes with the driver (libnvidia-gl); without a GPU, install lavapipe (mesa-vulkan-drivers) and set devices.allowSoftwareAdapter: true',
    });
  }
  if (adapter.software && !opts.allowSoftwareAdapter) {
    throw new MgpuError('E_BACKEND', `webgpu: the only adapter is a software one (${adapter.description || adapter.device}): a CPU, not a GPU`, {
      hint: 'set devices.allowSoftwareAdapter: true to train on it anyway (for tests), or use --backend wasm on a machine without a GPU',
    });
  }
  const tf = (await import('@tensorflow/tfjs')) as TF;
  await import('@tensorflow/tfjs-backend-webgpu');
  if (!(await tf.setBackend('webgpu'))) throw new Error("tf.setBackend('webgpu') returned false");
  await tf.ready();
  return { tf, adapter };
}

export async function loadBackend(requested: BackendName, opts: BackendOptions = {}): Promise<LoadedBackend> {
  const named = (name: string, tf: TF, adapter: AdapterInfo | null = null): LoadedBackend => ({
    tf,
    name: name === tf.getBackend() ? name : `${name} (${tf.getBackend()})`,
    adapter,
  });
  try {
    switch (requested) {
      case 'tfjs-node-gpu':
      case 'tfjs-node': {
        const tf = await tryNative(`@tensorflow/${requested}`);
        if (tf) return named(requested, tf);
        throw new MgpuError('E_BACKEND', `backend ${requested} is not installed`, { hint: BACKENDS[requested].install });
      }
      case 'webgpu': {
        const { tf, adapter } = await startWebgpu(opts);
        return named('webgpu', tf, adapter);
      }
      case 'wasm':
      case 'cpu':
        return named(requested, await startJs(requested, opts));
      case 'auto': {
        const node = await tryNative('@tensorflow/tfjs-node');
        if (node) return named('tfjs-node', node);
        try {
          return named('wasm', await startJs('wasm', opts));
        } catch {
          return named('cpu', await startJs('cpu', opts));
        }
      }
    }
  } catch (err) {
    if (err instanceof MgpuError) throw err;
    throw new MgpuError('E_BACKEND', `backend ${requested} failed to start: ${(err as Error).message}`, { hint: BACKENDS[requested].install });
  }
}
