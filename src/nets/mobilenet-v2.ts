// MobileNetV2 as torchvision builds it (torchvision.models.mobilenetv2): a 3x3/2 stem of 32,
// seven stages of inverted residuals (1x1 expansion, 3x3 depthwise, linear 1x1 projection, all
// with BatchNorm and ReLU6 but the last; a residual sum where stride 1 keeps the width), a 1x1
// convolution to 1280, a global average pool, dropout 0.2 and the dense head. `width` scales
// every stage's channels, rounded to a multiple of 8 as torchvision's _make_divisible does.
import { convBn, poolHead } from './blocks.ts';
import type { KernelSpec, NetBuilder, Sym, TF } from './net-options.ts';

// expansion t, channels c, repeats n, first stride s (the paper's table 2)
const STAGES: readonly [number, number, number, number][] = [
  [1, 16, 1, 1],
  [6, 24, 2, 2],
  [6, 32, 3, 2],
  [6, 64, 4, 2],
  [6, 96, 3, 1],
  [6, 160, 3, 2],
  [6, 320, 1, 1],
];

/** torchvision's _make_divisible(v, 8): the nearest multiple of 8, never more than 10% below v. */
export function makeDivisible(v: number, divisor = 8): number {
  const rounded = Math.max(divisor, Math.floor((v + divisor / 2) / divisor) * divisor);
  return rounded < 0.9 * v ? rounded + divisor : rounded;
}

function invertedResidual(tf: TF, x: Sym, t: number, out: number, stride: number, name: string, wd: KernelSpec): Sym {
  const inChannels = x.shape[3]!;
  let y = x;
  if (t !== 1) y = convBn(tf, y, { filters: inChannels * t, kernel: 1, name: `${name}_expand`, activation: 'relu6' }, wd);
  y = convBn(tf, y, { filters: 0, kernel: 3, stride, depthwise: true, name: `${name}_dw`, activation: 'relu6' }, wd);
  y = convBn(tf, y, { filters: out, kernel: 1, name: `${name}_project`, activation: 'linear' }, wd);
  return stride === 1 && inChannels === out ? (tf.layers.add({ name: `${name}_add` }).apply([x, y]) as Sym) : y;
}

export const mobilenetV2: NetBuilder = (tf, o) => {
  const wd = o;
  const input = tf.input({ shape: o.inputShape, name: 'input' });
  let x = convBn(tf, input, { filters: makeDivisible(32 * o.width), kernel: 3, stride: 2, name: 'stem', activation: 'relu6' }, wd);
  let block = 0;
  for (const [t, c, n, s] of STAGES) {
    for (let i = 0; i < n; i++) x = invertedResidual(tf, x, t, makeDivisible(c * o.width), i === 0 ? s : 1, `block${block++}`, wd);
  }
  x = convBn(tf, x, { filters: makeDivisible(1280 * Math.max(1, o.width)), kernel: 1, name: 'last', activation: 'relu6' }, wd);
  return tf.model({ inputs: input, outputs: poolHead(tf, x, o.classes, o.dropout ?? 0.2, wd), name: 'mobilenet_v2' });
};
