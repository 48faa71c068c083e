// ResNet in torchvision's layout (torchvision.models.resnet): a 7x7/2 stem and a 3x3/2 max-pool,
// four stages of basic blocks (18, 34) or bottlenecks (50) whose first block strides by 2 from
// the second stage on, a 1x1 convolution + BatchNorm on the shortcut where the shape changes,
// then a global average pool and the dense head. The bottleneck strides on its 3x3 ("ResNet
// v1.5"), not on its first 1x1 as the paper's v1 does. The CIFAR form (resnet18-cifar,
// resnet34-cifar) has a 3x3/1 stem and no max-pool, for 32x32 images.
import { act, bn, convBn, conv, poolHead } from './blocks.ts';
import type { KernelSpec, NetBuilder, NetOptions, Sym, TF } from './net-options.ts';

type Block = 'basic' | 'bottleneck';

const WIDTHS = [64, 128, 256, 512];

function basic(tf: TF, x: Sym, planes: number, stride: number, name: string, wd: KernelSpec): Sym {
  let y = convBn(tf, x, { filters: planes, kernel: 3, stride, name: `${name}_1`, activation: 'relu' }, wd);
  y = convBn(tf, y, { filters: planes, kernel: 3, name: `${name}_2`, activation: 'linear' }, wd);
  return join(tf, x, y, planes, stride, name, wd);
}

function bottleneck(tf: TF, x: Sym, planes: number, stride: number, name: string, wd: KernelSpec): Sym {
  let y = convBn(tf, x, { filters: planes, kernel: 1, name: `${name}_1`, activation: 'relu' }, wd);
  y = convBn(tf, y, { filters: planes, kernel: 3, stride, name: `${name}_2`, activation: 'relu' }, wd);
  y = convBn(tf, y, { filters: planes * 4, kernel: 1, name: `${name}_3`, activation: 'linear' }, wd);
  return join(tf, x, y, planes * 4, stride, name, wd);
}

/** The residual sum and its relu; a 1x1 projection of the shortcut where the shape changes. */
function join(tf: TF, x: Sym, y: Sym, out: number, stride: number, name: string, wd: KernelSpec): Sym {
  const inChannels = x.shape[3]!;
  const shortcut =
    stride !== 1 || inChannels !== out ? bn(tf, conv(tf, x, { filters: out, kernel: 1, stride, name: `${name}_down_conv` }, wd), `${name}_down_bn`) : x;
  return act(tf, tf.layers.add({ name: `${name}_add` }).apply([y, shortcut]) as Sym, 'relu', `${name}_out`);
}

function resnet(depths: readonly number[], block: Block, cifar: boolean): NetBuilder {
  return (tf: TF, o: NetOptions) => {
    const wd = o;
    const input = tf.input({ shape: o.inputShape, name: 'input' });
    let x: Sym;
    if (cifar) {
      x = convBn(tf, input, { filters: 64, kernel: 3, name: 'stem', activation: 'relu' }, wd);
    } else {
      x = convBn(tf, input, { filters: 64, kernel: 7, stride: 2, name: 'stem', activation: 'relu' }, wd);
      // torchvision pads the max-pool with -inf; after a relu every value is >= 0, so zeros pool the same.
      x = tf.layers.zeroPadding2d({ padding: 1, name: 'maxpool_pad' }).apply(x) as Sym;
      x = tf.layers.maxPooling2d({ poolSize: 3, strides: 2, padding: 'valid', name: 'maxpool' }).apply(x) as Sym;
    }
    const unit = block === 'basic' ? basic : bottleneck;
    depths.forEach((n, stage) => {
      for (let i = 0; i < n; i++) x = unit(tf, x, WIDTHS[stage]!, i === 0 && stage > 0 ? 2 : 1, `layer${stage + 1}_${i}`, wd);
    });
    return tf.model({ inputs: input, outputs: poolHead(tf, x, o.classes, 0, wd), name: 'resnet' });
  };
}

export const resnet18 = resnet([2, 2, 2, 2], 'basic', false);
export const resnet34 = resnet([3, 4, 6, 3], 'basic', false);
export const resnet50 = resnet([3, 4, 6, 3], 'bottleneck', false);
export const resnet18Cifar = resnet([2, 2, 2, 2], 'basic', true);
export const resnet34Cifar = resnet([3, 4, 6, 3], 'basic', true);
