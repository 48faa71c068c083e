// Picks and starts the worker's tfjs backend. `auto`: tfjs-node-gpu on a real GPU when it is
// installed, else tfjs-node, else wasm (SIMD; ships its binary in the npm package), else the
// pure-JS cpu backend. The native packages are optional peers: they download libtensorflow at
// install time, so a plain `npm install` never depends on them.
import type { BackendName } from '../shared/config/types.ts';
import { MgpuError } from '../shared/errors.ts';
import { registerWasmGradKernels } from './wasm-kernels/index.ts';

export type TF = typeof import('@tensorflow/tfjs');

export interface LoadedBackend {
  tf: TF;
  name: string; // what tf.getBackend() reports, with the package it came from
}

const INSTALL_HINT: Record<string, string> = {
  'tfjs-node-gpu': 'npm install @tensorflow/tfjs-node-gpu (needs CUDA and cuDNN, see its README)',
  'tfjs-node': 'npm install @tensorflow/tfjs-node',
  wasm: 'npm install @tensorflow/tfjs-backend-wasm',
  cpu: 'npm install @tensorflow/tfjs',
};

async function tryNative(pkg: '@tensorflow/tfjs-node-gpu' | '@tensorflow/tfjs-node'): Promise<TF | null> {
  try {
    const mod = (await import(pkg)) as { default?: TF } & TF;
    return (mod.default ?? mod) as TF;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return null;
    throw err;
  }
}

export interface BackendOptions {
  /** wasm: replace its slow or wrong kernels too (not only add the missing ones). Default true. */
  replaceWasmKernels?: boolean;
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
    registerWasmGradKernels(tf, { replaceMaxPoolGrad: replace, replaceConv2DBackpropInput: replace, replaceBatchMatMul: replace });
  }
  return tf;
}

export async function loadBackend(requested: BackendName, simulated: boolean, opts: BackendOptions = {}): Promise<LoadedBackend> {
  const wrap = (name: string) => async (load: () => Promise<TF | null>): Promise<LoadedBackend | null> => {
    const tf = await load();
    return tf ? { tf, name: `${name} (${tf.getBackend()})` } : null;
  };
  try {
    switch (requested) {
      case 'tfjs-node-gpu':
      case 'tfjs-node': {
        const got = await wrap(requested)(() => tryNative(`@tensorflow/${requested}`));
        if (got) return got;
        throw new MgpuError('E_BACKEND', `backend ${requested} is not installed`, { hint: INSTALL_HINT[requested] });
      }
      case 'wasm':
      case 'cpu':
        return (await wrap(requested)(() => startJs(requested, opts)))!;
      case 'auto': {
        if (!simulated) {
          const gpu = await wrap('tfjs-node-gpu')(() => tryNative('@tensorflow/tfjs-node-gpu'));
          if (gpu) return gpu;
        }
        const node = await wrap('tfjs-node')(() => tryNative('@tensorflow/tfjs-node'));
        if (node) return node;
        try {
          return (await wrap('wasm')(() => startJs('wasm', opts)))!;
        } catch {
          return (await wrap('cpu')(() => startJs('cpu', opts)))!;
        }
      }
    }
  } catch (err) {
    if (err instanceof MgpuError) throw err;
    throw new MgpuError('E_BACKEND', `backend ${requested} failed to start: ${(err as Error).message}`, {
      hint: INSTALL_HINT[requested] ?? 'try --backend wasm or --backend cpu',
    });
  }
}
