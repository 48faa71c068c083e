// A float32 tensor's values, without a copy where the backend allows it: on wasm a view of its
// heap (valid only until the next tensor is allocated: use it at once), elsewhere data().
import type { Tensor } from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import type { TF } from './backend.ts';

/**
 * Whether a new tensor copies the array it is made from at once (wasm copies into its heap), so
 * it may be handed a view of shared or reused memory; other backends may keep the array (cpu
 * does) and must get a copy.
 */
export function copiesOnCreate(tf: TF): boolean {
  return tf.getBackend() === 'wasm';
}

export async function valuesView(tf: TF, t: Tensor): Promise<Float32Array> {
  if (t.dtype === 'float32' && tf.getBackend() === 'wasm') {
    return (tf.backend() as unknown as BackendWasm).typedArrayFromHeap(t) as Float32Array;
  }
  return (await t.data()) as Float32Array;
}
