// The convolutions in C, run on the wasm backend's tensors in place: the addon is handed
// Float32Array views of the wasm heap. The addon computes them on oneDNN where it was built with
// it (native/src/onednn-conv.c; MGPU_CONV_LIBRARY=own turns that off), else, and for what oneDNN
// declines, on its own kernels (native/src/conv-kernels.c: im2col and a cache-blocked GEMM on
// the widest micro-kernel the CPU runs). When the addon is not built (or MGPU_NATIVE_CONV=0) the
// kernels of this directory keep their JavaScript im2col + XNNPACK paths and wasm keeps its own
// Conv2D; the run header says which (its `convolution` line, on wasm).
import { MgpuError } from '../../shared/errors.ts';
import { loadAddon } from '../../shared/native-addon.ts';
import type { Conv2DInfo } from './util.ts';

/** The typed arrays the element-wise functions take: a wasm tensor's float32, int32 or bool (uint8) data. */
type Elements = Float32Array | Int32Array | Uint8Array;

/** Batch normalisation in training, channel last: y, and the batch's mean and (biased) variance per channel. */
export type BatchNormTrainFn = (
  x: Float32Array,
  gamma: Float32Array,
  beta: Float32Array,
  y: Float32Array,
  mean: Float32Array,
  variance: Float32Array,
  epsilon: number,
) => void;

/** Its gradient: dx, dgamma, dbeta (dmean, dvariance null for zero). */
export type BatchNormTrainGradFn = (
  x: Float32Array,
  dy: Float32Array,
  gamma: Float32Array,
  mean: Float32Array,
  variance: Float32Array,
  dmean: Float32Array | null,
  dvariance: Float32Array | null,
  dx: Float32Array,
  dgamma: Float32Array,
  dbeta: Float32Array,
  epsilon: number,
) => void;

/**
 * The passes that batchNormTrain and batchNormTrainGrad are made of, one function each, for the
 * synchronised statistics (training.syncBatchNorm): batch-norm-train.ts sums each pass's float64
 * sums over every worker between them. C is the length of gamma, of the sums or of mu; x holds
 * whole rows of C. Composed over one worker's rows they are those two functions, bit for bit.
 */
export interface BatchNormPhases {
  /** sums[c] = Σ x over the rows, in float64. */
  batchNormSums(x: Float32Array, sums: Float64Array): void;
  /** m2[c] = Σ (x - mu[c])² over the rows, in float64. */
  batchNormSquaredDeviations(x: Float32Array, mu: Float64Array, m2: Float64Array): void;
  /** y = (x - mean) · gamma / sqrt(variance + epsilon) + beta, from the float32 mean and variance. */
  batchNormApply(x: Float32Array, gamma: Float32Array, beta: Float32Array, mean: Float32Array, variance: Float32Array, y: Float32Array, epsilon: number): void;
  /** sdy[c] = Σ dy, sdxc[c] = Σ dy · (x - mean) over the rows, in float64. */
  batchNormGradSums(x: Float32Array, dy: Float32Array, mean: Float32Array, sdy: Float64Array, sdxc: Float64Array): void;
  /** dbeta = sdy, dgamma = sdxc / sqrt(variance + epsilon). */
  batchNormGradParams(sdy: Float64Array, sdxc: Float64Array, variance: Float32Array, dgamma: Float32Array, dbeta: Float32Array, epsilon: number): void;
  /** dx of x's rows from sums over `rows` rows (x's own or every worker's, >= x's), dmean and dvariance summed likewise (null: zero). */
  batchNormGradApply(
    x: Float32Array,
    dy: Float32Array,
    gamma: Float32Array,
    mean: Float32Array,
    variance: Float32Array,
    rows: number,
    sdy: Float64Array,
    sdxc: Float64Array,
    dmean: Float64Array | null,
    dvariance: Float64Array | null,
    dx: Float32Array,
    epsilon: number,
  ): void;
}

export interface ConvAddon extends BatchNormPhases {
  /** out = act(patches(x) · w + bias); act 0 linear, 1 relu, 2 relu6. */
  conv2d(x: Float32Array, w: Float32Array, bias: Float32Array | null, out: Float32Array, geom: Int32Array, act: number): void;
  /** dx = col2im(dy · wᵀ). */
  backpropInput(dy: Float32Array, w: Float32Array, dx: Float32Array, geom: Int32Array): void;
  /** dw = patches(x)ᵀ · dy. */
  backpropFilter(x: Float32Array, dy: Float32Array, dw: Float32Array, geom: Int32Array): void;
  /** The depthwise filter gradient (out channels = in channels x multiplier), sums in float64. */
  depthwiseBackpropFilter(x: Float32Array, dy: Float32Array, dw: Float32Array, geom: Int32Array): void;
  /** The depthwise input gradient. */
  depthwiseBackpropInput(dy: Float32Array, w: Float32Array, dx: Float32Array, geom: Int32Array): void;
  /** The micro-kernel the CPU runs: 'avx512', 'avx2-fma' or 'generic'. */
  isa(): string;
  /** 'oneDNN <version>' where the addon has oneDNN (built with it), else null. */
  onednnVersion(): string | null;
  /** Whether oneDNN computes conv2d, backpropInput and backpropFilter (what it declines goes to the own kernels); on by default. */
  useOnednn(on: boolean): void;
  /** Batch normalisation in training (native/src/batch-norm.c): the same loops, and so the signature, as batch-norm-train.ts's JavaScript. */
  batchNormTrain: BatchNormTrainFn;
  /** Its gradient. */
  batchNormTrainGrad: BatchNormTrainGradFn;
  /** y = min(max, max(0, x)), NaN kept, max in float32 (native/src/relu-max.c; wasm-kernels/relu-max.ts). */
  reluMax(x: Float32Array, y: Float32Array, max: number): void;
  /** The ReLU6 activation's gradient: dx = dy where 0 < x < 6, else 0; NaN where x is NaN. */
  relu6Grad(x: Float32Array, dy: Float32Array, dx: Float32Array): void;
  /** The ReLU layer's gradient: dx = dy where 0 < x <= max, else 0; NaN where x is NaN. */
  reluMaxGrad(x: Float32Array, dy: Float32Array, dx: Float32Array, max: number): void;
  /** Comparisons (0-5), LogicalAnd / LogicalOr (6-7), Maximum / Minimum (8-9) of a and b, each out's length or 1 (native/src/elementwise.c). */
  binary(op: number, a: Elements, b: Elements, out: Elements): void;
  /** out = cond ? t : e. */
  select(cond: Uint8Array, t: Elements, e: Elements, out: Elements): void;
  /** out = x < 0 ? alpha · x : x, in float32. */
  leakyRelu(x: Float32Array, out: Float32Array, alpha: number): void;
  /** One core's measured FP32 FMA peak (native/src/fma-peak.c); absent from an addon built before it. */
  fmaPeak?: (seconds: number) => { gflops: number; isa: string };
}

const FUNCTIONS = [
  'conv2d',
  'backpropInput',
  'backpropFilter',
  'depthwiseBackpropFilter',
  'depthwiseBackpropInput',
  'isa',
  'onednnVersion',
  'useOnednn',
  'batchNormTrain',
  'batchNormTrainGrad',
  'batchNormSums',
  'batchNormSquaredDeviations',
  'batchNormApply',
  'batchNormGradSums',
  'batchNormGradParams',
  'batchNormGradApply',
  'reluMax',
  'relu6Grad',
  'reluMaxGrad',
  'binary',
  'select',
  'leakyRelu',
] as const;
/** The addon, or null with the reason; and what computes its convolutions ('oneDNN <version>', or null for its own kernels). */
export interface NativeConv {
  addon: ConvAddon | null;
  reason: string | null;
  library: string | null;
}
let loaded: NativeConv | null = null;

/** The values of MGPU_CONV_LIBRARY: oneDNN where the addon has it (the default), or the addon's own kernels. */
const LIBRARIES = ['onednn', 'own'] as const;

/** The addon (null when not built, when it does not load, or turned off by MGPU_NATIVE_CONV=0), set to the library MGPU_CONV_LIBRARY asks for. */
export function nativeConv(): NativeConv {
  if (loaded) return loaded;
  const { addon, reason } =
    process.env.MGPU_NATIVE_CONV === '0'
      ? { addon: null, reason: 'MGPU_NATIVE_CONV=0 turns the native convolutions off' }
      : loadAddon<ConvAddon>('mgpu_conv_kernels', 'convolution', FUNCTIONS);
  loaded = { addon, reason, library: addon ? libraryAsked(addon, process.env) : null };
  return loaded;
}

/** Sets the addon to MGPU_CONV_LIBRARY (oneDNN unless `own`) and returns what computes: `onednn` where the addon lacks it, or another value, is E_CONFIG. */
export function libraryAsked(addon: Pick<ConvAddon, 'onednnVersion' | 'useOnednn'>, env: NodeJS.ProcessEnv): string | null {
  const asked = env.MGPU_CONV_LIBRARY ?? '';
  if (asked !== '' && !(LIBRARIES as readonly string[]).includes(asked)) {
    throw new MgpuError('E_CONFIG', `MGPU_CONV_LIBRARY=${asked}: expected ${LIBRARIES.join(' or ')}`, {
      hint: "onednn: oneDNN where the addon was built with it (the default); own: the addon's own kernels",
    });
  }
  const version = addon.onednnVersion();
  if (asked === 'onednn' && version === null) {
    throw new MgpuError('E_CONFIG', 'MGPU_CONV_LIBRARY=onednn, but the convolution addon was built without oneDNN', {
      hint: 'install it (Debian: libdnnl-dev, as scripts/ci/install-onednn.sh does), then npm run build:native; or unset MGPU_CONV_LIBRARY',
    });
  }
  addon.useOnednn(asked !== 'own');
  return asked === 'own' ? null : version;
}

/** The run header's words for what computes the wasm backend's convolutions. */
export function wasmConvolutions(): string {
  const { addon, reason, library } = nativeConv();
  if (!addon) return `XNNPACK forward, JavaScript im2col gradients (${reason})`;
  return library ? `in C on ${library} (the ${addon.isa()} micro-kernel for what it declines)` : `in C (${addon.isa()} micro-kernel)`;
}

/** For tests: forget what was loaded, so that MGPU_NATIVE_CONV is read again. */
export function resetNativeConv(): void {
  loaded = null;
}

/** The addon's geometry: input, output and filter sizes, strides, top/left padding, and dy's spatial size. */
export function convGeometry(info: Conv2DInfo, dyH = info.outHeight, dyW = info.outWidth): Int32Array {
  const { batchSize, inHeight, inWidth, inChannels, outHeight, outWidth, outChannels, filterHeight, filterWidth, strideHeight, strideWidth } = info;
  return Int32Array.from([
    batchSize,
    inHeight,
    inWidth,
    inChannels,
    outHeight,
    outWidth,
    outChannels,
    filterHeight,
    filterWidth,
    strideHeight,
    strideWidth,
    info.padInfo.top,
    info.padInfo.left,
    dyH,
    dyW,
  ]);
}

/** Whether the addon computes this convolution: dilation 1 (the only one it implements). */
export function nativeGeometry(info: Conv2DInfo): boolean {
  return info.dilationHeight === 1 && info.dilationWidth === 1;
}
