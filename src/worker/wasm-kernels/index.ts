// Gradient kernels for @tensorflow/tfjs-backend-wasm 4.22, so that conv nets (Conv2D,
// SeparableConv2D, DepthwiseConv2D, Conv1D, Conv2DTranspose), Embedding layers and max-pooling
// train on it with the right gradients. Nothing registers itself on import: call
// registerWasmGradKernels(tf) once, after the wasm backend is set (or before: there is no setup
// step), e.g. in the worker's backend loader.
//
// Missing from the wasm backend, added:
//   Conv2DBackpropFilter                  im2col in JS + the wasm BatchMatMul (XNNPACK), or in C
//                                         (native-conv.ts) when the convolution addon is built
//   DepthwiseConv2dNativeBackpropFilter   plain JS, per-channel planes, float64 sums; in C with the addon
//   DepthwiseConv2dNativeBackpropInput    stride 1 on wasm's DepthwiseConv2dNative; other strides
//                                         in C with the addon, else plain JS (float64 sums)
//   UnsortedSegmentSum                    plain JS (the gradient of Gather / Embedding)
// Present but wrong, replaced (see max-pool-grad.ts; opt out with { replaceMaxPoolGrad: false }):
//   MaxPoolGrad                           plain JS, the cpu backend's semantics
// Present but slow, replaced (opt out with { replaceConv2DBackpropInput: false } and
// { replaceBatchMatMul: false }):
//   Conv2DBackpropInput                   the wasm BatchMatMul (XNNPACK) + col2im in JS, or in C
//   BatchMatMul                           with a transposed operand: wasm's Transpose, then wasm's
//                                         own BatchMatMul on its XNNPACK path (see batch-mat-mul.ts)
//   Tile                                  block copies in JS (tile.ts): wasm's walks element by element
//   Slice                                 block copies as long as the slice allows (slice.ts):
//                                         wasm's copies one innermost row at a time
//   Identity, Cast (to its own dtype)     no copy: the input's memory, one more reference (identity.ts)
//   Sum, Mean (over leading axes)         column sums in one pass (reduce-leading.ts): wasm's own
//                                         transpose the whole tensor first
// Present but slow, replaced when the convolution addon is built (opt out with
// { replaceElementwise: false }); computed in C where the operands are whole or one element, with
// wasm's own results, else by wasm's own kernel (elementwise.ts):
//   Greater, GreaterEqual, Less,          one loop each: wasm's walk a broadcasting index per
//   LessEqual, Equal, NotEqual,           element, 5-20x slower (the gradients of LeakyReLU,
//   LogicalAnd, LogicalOr, Select,        PReLU, clipByValue, Maximum and Minimum)
//   Maximum, Minimum, LeakyRelu
// Present, replaced only when the convolution addon is built (opt out with
// { replaceConvolutions: false }); what it does not compute goes to wasm's own kernel:
//   Conv2D, FusedConv2D                   im2col and a blocked GEMM in C (conv2d.ts), 4-5x XNNPACK's
//                                         speed on an AVX2 core (docs/performance.md)
// New, under names of our own (opt out with { fusedBatchNorm: false }), called by every
// BatchNormalization layer in training (src/worker/fused-batch-norm.ts):
//   MgpuBatchNormTrain, ...Grad           batch norm's forward and gradient fused, in C with the
//                                         addon, else in JS (batch-norm-train.ts)
//   MgpuRelu6, MgpuRelu6Grad              the ReLU6 activation and its gradient, and the ReLU layer
//   MgpuReluMax, MgpuReluMaxGrad          with a ceiling and its: one pass each, in C with the addon,
//                                         else in JS (relu-max.ts; src/worker/fused-relu6.ts and
//                                         fused-relu-layer.ts call them)
//
// Supported: NHWC (and NCHW for Conv2DBackpropFilter), any strides, 'same' / 'valid' / numeric /
// explicit padding, dimRoundingMode; dilations other than 1 are refused with an error (tfjs's own
// gradients of these ops refuse them too).
import type { GradConfig, KernelConfig, KernelFunc } from '@tensorflow/tfjs';
import { batchMatMul } from './batch-mat-mul.ts';
import { BN_TRAIN, BN_TRAIN_GRAD } from '../fused-batch-norm.ts';
import { RELU_MAX, RELU_MAX_GRAD } from '../fused-relu-layer.ts';
import { RELU6, RELU6_GRAD } from '../fused-relu6.ts';
import { batchNormTrain, batchNormTrainGrad, batchNormTrainGradConfig } from './batch-norm-train.ts';
import { conv2D } from './conv2d.ts';
import { conv2DBackpropFilter } from './conv2d-backprop-filter.ts';
import { conv2DBackpropInput } from './conv2d-backprop-input.ts';
import { depthwiseConv2dNativeBackpropFilter } from './depthwise-backprop-filter.ts';
import { depthwiseConv2dNativeBackpropInput } from './depthwise-backprop-input.ts';
import { binary, BINARY_NAMES, ELEMENTWISE_KERNELS, leakyRelu, select } from './elementwise.ts';
import { maxPoolGrad } from './max-pool-grad.ts';
import { nativeConv } from './native-conv.ts';
import { cast, identity } from './identity.ts';
import { reduceLeading } from './reduce-leading.ts';
import { relu6, relu6Grad, reluMax, reluMaxGrad } from './relu-max.ts';
import { slice } from './slice.ts';
import { tile } from './tile.ts';
import { unsortedSegmentSum } from './unsorted-segment-sum.ts';
import { BACKEND, findKernel, type KernelArgs, type TF } from './util.ts';

/** The kernels the wasm backend lacks, which this module adds. */
export const WASM_MISSING_KERNELS = [
  'Conv2DBackpropFilter',
  'DepthwiseConv2dNativeBackpropFilter',
  'DepthwiseConv2dNativeBackpropInput',
  'UnsortedSegmentSum',
] as const;
/** The kernels the wasm backend has but gets wrong (or slow), which this module replaces. */
export const WASM_REPLACED_KERNELS = [
  'MaxPoolGrad',
  'Conv2DBackpropInput',
  'BatchMatMul',
  'Tile',
  'Slice',
  'Identity',
  'Cast',
  'Sum',
  'Mean',
  'Conv2D',
  'FusedConv2D',
  ...ELEMENTWISE_KERNELS,
] as const;
/** Kernels of our own that no tfjs backend has: batch normalisation in training and ReLU with a ceiling, fused. */
export const WASM_FUSED_KERNELS = [BN_TRAIN, BN_TRAIN_GRAD, RELU6, RELU6_GRAD, RELU_MAX, RELU_MAX_GRAD] as const;
export type WasmGradKernel = (typeof WASM_MISSING_KERNELS)[number] | (typeof WASM_REPLACED_KERNELS)[number] | (typeof WASM_FUSED_KERNELS)[number];

export interface RegisterOptions {
  /** Replace wasm's MaxPoolGrad (wrong for windows whose values are all <= 0). Default true. */
  replaceMaxPoolGrad?: boolean;
  /** Replace wasm's Conv2DBackpropInput (correct, but several times slower). Default true. */
  replaceConv2DBackpropInput?: boolean;
  /** Replace wasm's BatchMatMul (correct, but 15-20x slower with a transposed operand). Default true. */
  replaceBatchMatMul?: boolean;
  /** Replace wasm's Tile (element by element), Slice (row by row), Identity and same-dtype Cast (copies), Sum and Mean (a transpose first) by ours. Default true. */
  replaceCopyKernels?: boolean;
  /** Replace wasm's Conv2D and FusedConv2D by the native ones, when the addon is built. Default true. */
  replaceConvolutions?: boolean;
  /** Replace wasm's comparisons, LogicalAnd / LogicalOr, Maximum / Minimum, Select and LeakyRelu by loops over whole operands (elementwise.ts). Default true. */
  replaceElementwise?: boolean;
  /** Register the fused kernels (and their gradients): batch norm in training, which every BatchNormalization uses, and ReLU with a ceiling. Default true. */
  fusedBatchNorm?: boolean;
}

export interface Registered {
  /** Kernels that were missing and are now registered (the fused batch-norm kernels of our own among them). */
  added: WasmGradKernel[];
  /** wasm's own kernels that were unregistered and replaced. */
  replaced: WasmGradKernel[];
}

/**
 * Our kernels; `wasm` looks up the wasm backend's own config of a kernel we wrap (BatchMatMul
 * keeps wasm's kernelFunc for the product and its setupFunc, which binds the wasm function).
 */
function configs(tf: TF, wasm: (name: string) => KernelConfig | undefined): Map<WasmGradKernel, KernelConfig> {
  // The attrs each kernel reads are the ones tfjs-core's ops pass for that kernel name.
  const k = (f: (args: KernelArgs<never>) => unknown) => f as unknown as KernelFunc;
  const all: [WasmGradKernel, KernelFunc][] = [
    ['Conv2DBackpropFilter', k((a) => conv2DBackpropFilter(tf, a))],
    ['DepthwiseConv2dNativeBackpropFilter', k((a) => depthwiseConv2dNativeBackpropFilter(tf, a))],
    ['DepthwiseConv2dNativeBackpropInput', k((a) => depthwiseConv2dNativeBackpropInput(tf, a))],
    ['UnsortedSegmentSum', k((a) => unsortedSegmentSum(a))],
    ['MaxPoolGrad', k((a) => maxPoolGrad(tf, a))],
    ['Conv2DBackpropInput', k((a) => conv2DBackpropInput(tf, a))],
    [BN_TRAIN, k((a) => batchNormTrain(a))],
    [BN_TRAIN_GRAD, k((a) => batchNormTrainGrad(a))],
    [RELU6, k((a) => relu6(a))],
    [RELU6_GRAD, k((a) => relu6Grad(a))],
    [RELU_MAX, k((a) => reluMax(a))],
    [RELU_MAX_GRAD, k((a) => reluMaxGrad(a))],
  ];
  const map = new Map<WasmGradKernel, KernelConfig>(all.map(([kernelName, kernelFunc]) => [kernelName, { kernelName, backendName: BACKEND, kernelFunc }]));
  const mm = wasm('BatchMatMul');
  if (mm) map.set('BatchMatMul', { ...mm, kernelFunc: k((a) => batchMatMul(tf, mm.kernelFunc, a)) });
  const t = wasm('Tile');
  if (t) map.set('Tile', { ...t, kernelFunc: k((a) => tile(a, t.kernelFunc)) });
  const sl = wasm('Slice');
  if (sl) map.set('Slice', { ...sl, kernelFunc: k((a) => slice(tf, a, sl.kernelFunc)) });
  const id = wasm('Identity');
  if (id) map.set('Identity', { ...id, kernelFunc: k((a) => identity(a, id.kernelFunc)) });
  const c = wasm('Cast');
  if (c) map.set('Cast', { ...c, kernelFunc: k((a) => cast(a, c.kernelFunc)) });
  for (const name of ['Sum', 'Mean'] as const) {
    const own = wasm(name);
    if (own) map.set(name, { ...own, kernelFunc: k((a) => reduceLeading(tf, a, own.kernelFunc, name === 'Mean')) });
  }
  const addon = nativeConv().addon;
  for (const name of addon ? BINARY_NAMES : []) {
    const own = wasm(name);
    if (own) map.set(name, { ...own, kernelFunc: k((a) => binary(addon!, name, a, own.kernelFunc)) });
  }
  const sel = addon && wasm('Select');
  if (sel) map.set('Select', { ...sel, kernelFunc: k((a) => select(addon, a, sel.kernelFunc)) });
  const lr = addon && wasm('LeakyRelu');
  if (lr) map.set('LeakyRelu', { ...lr, kernelFunc: k((a) => leakyRelu(addon, a, lr.kernelFunc)) });
  for (const name of ['Conv2D', 'FusedConv2D'] as const) {
    const own = wasm(name);
    if (own && addon) map.set(name, { ...own, kernelFunc: k((a) => conv2D(tf, a, own.kernelFunc)) });
  }
  return map;
}

/** Our kernel functions, and the wasm kernels they displaced (to put back on unregister). */
const ours = new WeakSet<KernelFunc>();
const displaced = new Map<string, KernelConfig>();

/**
 * Registers the missing gradient kernels for the 'wasm' backend in tf's kernel registry (any that
 * is already registered, by an earlier call or by a newer tfjs-backend-wasm, is left alone), and
 * replaces wasm's MaxPoolGrad and Conv2DBackpropInput unless told not to. Safe to call more than once.
 */
export function registerWasmGradKernels(tf: TF, opts: RegisterOptions = {}): Registered {
  const result: Registered = { added: [], replaced: [] };
  const mine = configs(tf, (name) => {
    const k = displaced.get(name) ?? findKernel(tf, name, BACKEND);
    return k && !ours.has(k.kernelFunc) ? k : undefined;
  });
  for (const name of WASM_MISSING_KERNELS) {
    if (findKernel(tf, name, BACKEND)) continue;
    register(tf, mine.get(name)!);
    result.added.push(name);
  }
  if (opts.fusedBatchNorm ?? true) {
    for (const name of WASM_FUSED_KERNELS) {
      if (findKernel(tf, name, BACKEND)) continue;
      register(tf, mine.get(name)!);
      result.added.push(name);
    }
    // The gradient registry is keyed by kernel name alone; this name is ours, so no other
    // backend's batch norm changes.
    if (!(tf.getGradient(BN_TRAIN) as GradConfig | undefined)) tf.registerGradient(batchNormTrainGradConfig(tf));
  }
  const replace: Record<(typeof WASM_REPLACED_KERNELS)[number], boolean> = {
    MaxPoolGrad: opts.replaceMaxPoolGrad ?? true,
    Conv2DBackpropInput: opts.replaceConv2DBackpropInput ?? true,
    BatchMatMul: opts.replaceBatchMatMul ?? true,
    Tile: opts.replaceCopyKernels ?? true,
    Slice: opts.replaceCopyKernels ?? true,
    Identity: opts.replaceCopyKernels ?? true,
    Cast: opts.replaceCopyKernels ?? true,
    Sum: opts.replaceCopyKernels ?? true,
    Mean: opts.replaceCopyKernels ?? true,
    Conv2D: opts.replaceConvolutions ?? true,
    FusedConv2D: opts.replaceConvolutions ?? true,
    ...(Object.fromEntries(ELEMENTWISE_KERNELS.map((n) => [n, opts.replaceElementwise ?? true])) as Record<(typeof ELEMENTWISE_KERNELS)[number], boolean>),
  };
  for (const name of WASM_REPLACED_KERNELS) {
    if (replace[name]) {
      const existing = findKernel(tf, name, BACKEND);
      if ((existing && ours.has(existing.kernelFunc)) || !mine.has(name)) continue;
      if (existing) {
        displaced.set(name, existing);
        tf.unregisterKernel(name, BACKEND);
      }
      register(tf, mine.get(name)!);
      result.replaced.push(name);
    }
  }
  return result;
}

function register(tf: TF, config: KernelConfig): void {
  ours.add(config.kernelFunc);
  tf.registerKernel(config);
}

/** Removes what registerWasmGradKernels registered and puts back the kernels it replaced. */
export function unregisterWasmGradKernels(tf: TF): WasmGradKernel[] {
  const removed: WasmGradKernel[] = [];
  for (const name of [...WASM_MISSING_KERNELS, ...WASM_REPLACED_KERNELS, ...WASM_FUSED_KERNELS]) {
    const k = findKernel(tf, name, BACKEND);
    if (!k || !ours.has(k.kernelFunc)) continue;
    tf.unregisterKernel(name, BACKEND);
    const original = displaced.get(name);
    if (original) {
      tf.registerKernel(original);
      displaced.delete(name);
    }
    removed.push(name);
  }
  return removed;
}
