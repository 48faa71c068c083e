// EfficientNet-B0 as torchvision builds it (torchvision.models.efficientnet): a 3x3/2 stem of 32
// with SiLU (swish), seven stages of MBConv blocks (1x1 expansion, kxk depthwise, squeeze-and-
// excitation, linear 1x1 projection, a residual sum where stride 1 keeps the width), a 1x1
// convolution to 1280, a global average pool, dropout 0.2 and the dense head. Squeeze-and-
// excitation is standard layers: a global average pool reshaped to 1x1, two 1x1 convolutions
// with bias (SiLU, then sigmoid) and a Multiply that broadcasts over height and width; it
// squeezes to a quarter of the block's input channels, as torchvision does. Not built:
// torchvision's stochastic depth (a sample's residual branch dropped in training, rate up to
// 0.2), which tfjs has no standard layer for; the layers and the parameters are the same.
import { convBn, conv, poolHead } from './blocks.ts';
import type { KernelSpec, NetBuilder, Sym, TF } from './net-options.ts';

// expansion, kernel, first stride, channels out, repeats (torchvision's MBConvConfig for B0)
const STAGES: readonly [number, number, number, number, number][] = [
  [1, 3, 1, 16, 1],
  [6, 3, 2, 24, 2],
  [6, 5, 2, 40, 2],
  [6, 3, 2, 80, 3],
  [6, 5, 1, 112, 3],
  [6, 5, 2, 192, 4],
  [6, 3, 1, 320, 1],
];

function squeezeExcite(tf: TF, x: Sym, squeeze: number, name: string, wd: KernelSpec): Sym {
  const channels = x.shape[3]!;
  let s = tf.layers.globalAveragePooling2d({ name: `${name}_se_pool` }).apply(x) as Sym;
  s = tf.layers.reshape({ targetShape: [1, 1, channels], name: `${name}_se_reshape` }).apply(s) as Sym;
  s = conv(tf, s, { filters: squeeze, kernel: 1, bias: true, activation: 'swish', name: `${name}_se_reduce` }, wd);
  s = conv(tf, s, { filters: channels, kernel: 1, bias: true, activation: 'sigmoid', name: `${name}_se_expand` }, wd);
  return tf.layers.multiply({ name: `${name}_se_scale` }).apply([x, s]) as Sym;
}

function mbConv(tf: TF, x: Sym, [t, k, stride, out]: readonly number[], name: string, wd: KernelSpec): Sym {
  const inChannels = x.shape[3]!;
  let y = x;
  if (t !== 1) y = convBn(tf, y, { filters: inChannels * t!, kernel: 1, name: `${name}_expand`, activation: 'swish' }, wd);
  y = convBn(tf, y, { filters: 0, kernel: k!, stride, depthwise: true, name: `${name}_dw`, activation: 'swish' }, wd);
  y = squeezeExcite(tf, y, Math.max(1, Math.floor(inChannels / 4)), name, wd);
  y = convBn(tf, y, { filters: out!, kernel: 1, name: `${name}_project`, activation: 'linear' }, wd);
  return stride === 1 && inChannels === out ? (tf.layers.add({ name: `${name}_add` }).apply([x, y]) as Sym) : y;
}

export const efficientnetB0: NetBuilder = (tf, o) => {
  const wd = o;
  const input = tf.input({ shape: o.inputShape, name: 'input' });
  let x = convBn(tf, input, { filters: 32, kernel: 3, stride: 2, name: 'stem', activation: 'swish' }, wd);
  let block = 0;
  for (const [t, k, s, c, n] of STAGES) {
    for (let i = 0; i < n; i++) x = mbConv(tf, x, [t, k, i === 0 ? s : 1, c], `block${block++}`, wd);
  }
  x = convBn(tf, x, { filters: 1280, kernel: 1, name: 'last', activation: 'swish' }, wd);
  return tf.model({ inputs: input, outputs: poolHead(tf, x, o.classes, o.dropout ?? 0.2, wd), name: 'efficientnet_b0' });
};
