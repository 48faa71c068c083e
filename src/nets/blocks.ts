// The pieces every family is wired from, with torchvision's conventions where tfjs's defaults
// differ: BatchNorm with epsilon 1e-5 and momentum 0.1 (keras's momentum 0.9), convolutions
// without bias before a BatchNorm, and torchvision's symmetric padding (k - 1) / 2: tfjs's
// 'same' pads asymmetrically at stride 2 (more on the bottom and right), so a strided
// convolution gets an explicit ZeroPadding2D and 'valid'. Every kernel takes the L2 penalty.
import type { KernelSpec, Sym, TF } from './net-options.ts';

export interface ConvSpec {
  filters: number;
  kernel: number;
  stride?: number; // default 1
  name: string;
  bias?: boolean; // default false (a BatchNorm follows)
  activation?: 'relu' | 'relu6' | 'swish' | 'sigmoid' | 'linear';
  depthwise?: boolean; // a depthwise convolution (filters is ignored: one per channel)
}

/** The kernel regularizer of TF-slim's weight_decay (slim.l2_regularizer: decay · Σ w² / 2), or none. */
export function kernelDecay(tf: TF, k: KernelSpec) {
  return k.weightDecay > 0 ? tf.regularizers.l2({ l2: k.weightDecay / 2 }) : undefined;
}

/** tfjs's default initialiser (undefined), or zeros when only counting. */
export const kernelInit = (k: KernelSpec) => (k.zeroInit ? ('zeros' as const) : undefined);

/** A convolution padded as torchvision pads it: (k - 1) / 2 on every side. */
export function conv(tf: TF, x: Sym, c: ConvSpec, k: KernelSpec): Sym {
  const stride = c.stride ?? 1;
  const pad = (c.kernel - 1) / 2;
  // At stride 1 an odd kernel's 'same' is symmetric already; at stride 2 it is not.
  const explicit = stride > 1 && pad > 0;
  const input = explicit ? (tf.layers.zeroPadding2d({ padding: pad, name: `${c.name}_pad` }).apply(x) as Sym) : x;
  const common = {
    kernelSize: c.kernel,
    strides: stride,
    padding: explicit || pad === 0 ? ('valid' as const) : ('same' as const),
    useBias: c.bias ?? false,
    activation: c.activation ?? 'linear',
    name: c.name,
  };
  const layer = c.depthwise
    ? tf.layers.depthwiseConv2d({ ...common, depthwiseRegularizer: kernelDecay(tf, k), depthwiseInitializer: kernelInit(k) })
    : tf.layers.conv2d({ ...common, filters: c.filters, kernelRegularizer: kernelDecay(tf, k), kernelInitializer: kernelInit(k) });
  return layer.apply(input) as Sym;
}

/**
 * BatchNorm as torchvision's BatchNorm2d (eps 1e-5, momentum 0.1: keras's 0.9): tfjs's own layer
 * (a worker trains every one on fused kernels where its backend has them: src/worker/fused-batch-norm.ts).
 */
export function bn(tf: TF, x: Sym, name: string): Sym {
  return tf.layers.batchNormalization({ epsilon: 1e-5, momentum: 0.9, name }).apply(x) as Sym;
}

export function act(tf: TF, x: Sym, activation: 'relu' | 'relu6' | 'swish', name: string): Sym {
  return tf.layers.activation({ activation, name }).apply(x) as Sym;
}

/** conv → BatchNorm → activation (none for 'linear'), named <name>_conv, <name>_bn, <name>_act. */
export function convBn(tf: TF, x: Sym, c: Omit<ConvSpec, 'activation'> & { activation: 'relu' | 'relu6' | 'swish' | 'linear' }, k: KernelSpec): Sym {
  const y = bn(tf, conv(tf, x, { ...c, activation: 'linear', name: `${c.name}_conv` }, k), `${c.name}_bn`);
  return c.activation === 'linear' ? y : act(tf, y, c.activation, `${c.name}_${c.activation}`);
}

/** The classifier: global average pool → (dropout) → dense softmax, named pool, dropout, fc. */
export function poolHead(tf: TF, x: Sym, classes: number, dropout: number, k: KernelSpec): Sym {
  let y = tf.layers.globalAveragePooling2d({ name: 'pool' }).apply(x) as Sym;
  if (dropout > 0) y = tf.layers.dropout({ rate: dropout, name: 'dropout' }).apply(y) as Sym;
  return dense(tf, y, classes, 'softmax', 'fc', k);
}

export function dense(tf: TF, x: Sym, units: number, activation: 'relu' | 'softmax', name: string, k: KernelSpec): Sym {
  return tf.layers.dense({ units, activation, name, kernelRegularizer: kernelDecay(tf, k), kernelInitializer: kernelInit(k) }).apply(x) as Sym;
}
