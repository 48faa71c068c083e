// The fused ReLU6 for the wasm backend (src/worker/fused-relu6.ts says why and what it computes):
// one pass each way over the wasm heap, in C with the convolution addon (native/src/relu6.c,
// vectorised), else the same loops in JavaScript (about 3x slower than C here).
import type { TensorInfo } from '@tensorflow/tfjs';
import { nativeConv } from './native-conv.ts';
import { f32, type KernelArgs, makeOutput } from './util.ts';

/** MgpuRelu6: y = min(6, max(0, x)); NaN stays NaN. */
export function relu6(args: KernelArgs<object>): TensorInfo {
  const { inputs, backend } = args;
  const x = inputs.x!;
  const out = makeOutput(backend, [...x.shape]);
  // Views only now: the allocation may have grown (and detached) the heap.
  const xs = f32(backend, x);
  const ys = f32(backend, out);
  const native = nativeConv().addon;
  if (native) {
    native.relu6(xs, ys);
    return out;
  }
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i]!;
    ys[i] = v > 0 ? (v < 6 ? v : 6) : v === v ? 0 : v;
  }
  return out;
}

/** MgpuRelu6Grad: dx = dy · [6 > relu(x)] · step(x), the products tfjs's gradients multiply, in their order. */
export function relu6Grad(args: KernelArgs<object>): TensorInfo {
  const { inputs, backend } = args;
  const x = inputs.x!;
  const out = makeOutput(backend, [...x.shape]);
  const xs = f32(backend, x);
  const dys = f32(backend, inputs.dy!);
  const dxs = f32(backend, out);
  const native = nativeConv().addon;
  if (native) {
    native.relu6Grad(xs, dys, dxs);
    return out;
  }
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i]!;
    const belowSix = (v > 0 ? v : 0) < 6 ? 1 : 0;
    const step = v > 0 ? 1 : v === v ? 0 : v;
    dxs[i] = dys[i]! * belowSix * step;
  }
  return out;
}
