// The fused ReLU with a ceiling for the wasm backend: the ReLU6 activation (src/worker/fused-relu6.ts)
// and the ReLU layer's maxValue (src/worker/fused-relu-layer.ts) say why and what each computes.
// One pass each way over the wasm heap, in C with the convolution addon (native/src/relu-max.c,
// vectorised), else the same loops in JavaScript (about 3x slower than C here).
import type { TensorInfo } from '@tensorflow/tfjs';
import { nativeConv } from './native-conv.ts';
import { f32, type KernelArgs, makeOutput } from './util.ts';

/** y = min(max, max(0, x)); NaN stays NaN. The ceiling is compared in float32, as tfjs's tensors hold it. */
function reluMaxInto(backend: KernelArgs<object>['backend'], x: TensorInfo, ceiling: number): TensorInfo {
  const out = makeOutput(backend, [...x.shape]);
  // Views only now: the allocation may have grown (and detached) the heap.
  const xs = f32(backend, x);
  const ys = f32(backend, out);
  const native = nativeConv().addon;
  if (native) {
    native.reluMax(xs, ys, ceiling);
    return out;
  }
  const max = Math.fround(ceiling);
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i]!;
    ys[i] = v > 0 ? (v > max ? max : v) : v === v ? 0 : v;
  }
  return out;
}

/** MgpuRelu6: y = min(6, max(0, x)). */
export function relu6(args: KernelArgs<object>): TensorInfo {
  return reluMaxInto(args.backend, args.inputs.x!, 6);
}

/** MgpuReluMax (attr maxValue): y = min(maxValue, max(0, x)). */
export function reluMax(args: KernelArgs<{ maxValue: number }>): TensorInfo {
  return reluMaxInto(args.backend, args.inputs.x!, args.attrs.maxValue);
}

/** x, dy and a new dx of x's shape, as views of the wasm heap taken after dx's allocation. */
function gradViews(args: KernelArgs<object>): { out: TensorInfo; xs: Float32Array; dys: Float32Array; dxs: Float32Array } {
  const { inputs, backend } = args;
  const out = makeOutput(backend, [...inputs.x!.shape]);
  return { out, xs: f32(backend, inputs.x!), dys: f32(backend, inputs.dy!), dxs: f32(backend, out) };
}

/** MgpuRelu6Grad: dx = dy · [6 > relu(x)] · step(x), the products tfjs's gradients multiply, in their order. */
export function relu6Grad(args: KernelArgs<object>): TensorInfo {
  const { out, xs, dys, dxs } = gradViews(args);
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

/** MgpuReluMaxGrad (attr maxValue): dx = (0 <= relu(x) <= maxValue ? dy : 0) · step(x), tfjs's Select and product, in their order. */
export function reluMaxGrad(args: KernelArgs<{ maxValue: number }>): TensorInfo {
  const { out, xs, dys, dxs } = gradViews(args);
  const native = nativeConv().addon;
  if (native) {
    native.reluMaxGrad(xs, dys, dxs, args.attrs.maxValue);
    return out;
  }
  const max = Math.fround(args.attrs.maxValue);
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i]!;
    const clipped = v <= max ? dys[i]! : 0; // 0 <= relu(x) <= max: x <= max as max >= 0, false for NaN
    const step = v > 0 ? 1 : v === v ? 0 : v;
    dxs[i] = clipped * step;
  }
  return out;
}
