// Kernels of tfjs-backend-cpu 4.22 that compute a wrong result, replaced (the cpu backend's
// counterpart of ../wasm-kernels/). Nothing registers itself on import: call
// registerCpuKernels(tf) once the cpu backend is set, e.g. in the worker's backend loader.
//
//   ResizeNearestNeighborGrad   wrong for batch > 1 (dy read at the images' batch stride) and
//                               blind to halfPixelCenters; plain JS, the forward pass transposed
import type { KernelConfig, KernelFunc } from '@tensorflow/tfjs';
import { resizeNearestNeighborGrad } from './resize-nearest-neighbor-grad.ts';

type TF = typeof import('@tensorflow/tfjs');

const BACKEND = 'cpu';
export const CPU_REPLACED_KERNELS = ['ResizeNearestNeighborGrad'] as const;
export type CpuKernel = (typeof CPU_REPLACED_KERNELS)[number];

const OURS: Record<CpuKernel, KernelFunc> = {
  ResizeNearestNeighborGrad: resizeNearestNeighborGrad as unknown as KernelFunc,
};

/** The cpu backend's own kernels we displaced, to put back on unregister. */
const displaced = new Map<string, KernelConfig>();

/** Replaces the cpu backend's wrong kernels with ours; the names replaced (none when already done). Safe to call more than once. */
export function registerCpuKernels(tf: TF): CpuKernel[] {
  const replaced: CpuKernel[] = [];
  for (const name of CPU_REPLACED_KERNELS) {
    const existing = tf.getKernel(name, BACKEND) as KernelConfig | undefined;
    if (existing?.kernelFunc === OURS[name]) continue;
    if (existing) {
      displaced.set(name, existing);
      tf.unregisterKernel(name, BACKEND);
    }
    tf.registerKernel({ kernelName: name, backendName: BACKEND, kernelFunc: OURS[name] });
    replaced.push(name);
  }
  return replaced;
}

/** Puts the cpu backend's own kernels back (for tests that compare against them). */
export function unregisterCpuKernels(tf: TF): CpuKernel[] {
  const removed: CpuKernel[] = [];
  for (const name of CPU_REPLACED_KERNELS) {
    if ((tf.getKernel(name, BACKEND) as KernelConfig | undefined)?.kernelFunc !== OURS[name]) continue;
    tf.unregisterKernel(name, BACKEND);
    const original = displaced.get(name);
    if (original) tf.registerKernel(original);
    displaced.delete(name);
    removed.push(name);
  }
  return removed;
}
