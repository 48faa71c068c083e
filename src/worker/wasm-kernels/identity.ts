// Identity, and Cast to the dtype a tensor already has, for the wasm backend without a copy: the
// output shares the input's memory, counted by the backend's refCount, exactly as wasm's own
// Reshape does and as the cpu backend's Identity does (tfjs tensors are immutable; a Variable's
// assign takes a new dataId). wasm's own copy every element; a ResNet-18 step made 600 of them
// (the Add layers clone their first input; the ReLU gradient casts float32 to float32), 8% of it.
// A Cast to another dtype, and strings, go to wasm's own kernel.
import type { CastAttrs, KernelFunc, TensorInfo } from '@tensorflow/tfjs';
import type { KernelArgs } from './util.ts';

/** The same memory under a new TensorInfo (the backend counts one more reference). */
function share(args: KernelArgs<object>): TensorInfo {
  const x = args.inputs.x!;
  args.backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

export function identity(args: KernelArgs<object>, wasm: KernelFunc): TensorInfo {
  return args.inputs.x!.dtype === 'string' ? (wasm(args as never) as TensorInfo) : share(args);
}

export function cast(args: KernelArgs<CastAttrs>, wasm: KernelFunc): TensorInfo {
  const x = args.inputs.x!;
  return x.dtype !== 'string' && x.dtype === args.attrs.dtype ? share(args) : (wasm(args as never) as TensorInfo);
}
