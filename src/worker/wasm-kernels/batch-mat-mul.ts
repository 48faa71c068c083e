// BatchMatMul for wasm with transposed operands. tfjs-backend-wasm 4.22 runs a matmul through
// XNNPACK only when neither operand is transposed; with transposeA or transposeB it falls back to
// a plain loop some 15-20x slower. That is every gradient of a Dense layer (dW = xᵀ·dy,
// dx = dy·Wᵀ): on the MLP 784-512-10 at batch 512 it is 430 of a 520 ms step.
//
// Here a transposed operand is first materialised by wasm's own Transpose (a few ms) and the
// product runs on the XNNPACK path. Broadcast batch dimensions pass through untouched: only the
// last two axes move.
import type { KernelFunc, TensorInfo } from '@tensorflow/tfjs';
import { dispose, type KernelArgs, runKernel, type TF } from './util.ts';

interface Attrs {
  transposeA: boolean;
  transposeB: boolean;
}

/** wasm's BatchMatMul, given operands already in [.., m, k] x [.., k, n] order. */
export function batchMatMul(tf: TF, original: KernelFunc, args: KernelArgs<Attrs>): TensorInfo {
  const { transposeA, transposeB } = args.attrs;
  if (!transposeA && !transposeB) return original(args as never) as TensorInfo;
  const { backend } = args;
  const temps: TensorInfo[] = [];
  const upright = (t: TensorInfo, transposed: boolean): TensorInfo => {
    if (!transposed) return t;
    const r = t.shape.length;
    const perm = [...Array(r - 2).keys(), r - 1, r - 2];
    const u = runKernel(tf, backend, 'Transpose', { x: t }, { perm });
    temps.push(u);
    return u;
  };
  try {
    const a = upright(args.inputs.a!, transposeA);
    const b = upright(args.inputs.b!, transposeB);
    return original({ inputs: { a, b }, backend, attrs: { ...args.attrs, transposeA: false, transposeB: false } }) as TensorInfo;
  } finally {
    dispose(backend, ...temps);
  }
}
