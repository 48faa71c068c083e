// The networks `model: { net: <name> }` names, one entry each: its builder (one file per family
// here), its standard input, the smallest input it takes, the classes of its standard form, its
// head's dropout (null: it has none) and whether it takes a width multiplier. The config's checks,
// the worker (which builds the model), `mgpu-train nets` and the benchmark read this table, so a
// network is one entry here and its builder beside it. Builders take `tf` as an argument, so the
// table imports no tfjs: the config checks read it without loading a backend.
import { efficientnetB0 } from './efficientnet.ts';
import { lenet } from './lenet.ts';
import { mobilenetV2 } from './mobilenet-v2.ts';
import { NET_NAMES, type NetName } from './net-names.ts';
import type { NetBuilder, NetOptions, TF } from './net-options.ts';
import { resnet18, resnet18Cifar, resnet34, resnet34Cifar, resnet50 } from './resnet.ts';
import { vgg16 } from './vgg.ts';
import type { LayersModel } from '@tensorflow/tfjs';

export interface NetTraits {
  build: NetBuilder;
  /** [height, width, channels] of its standard input (the default of model.inputShape). */
  input: [number, number, number];
  /** The smallest height and width it takes (Keras's applications refuse below 32 for theirs). */
  minSide: number;
  /** The classes of its standard form (ImageNet's 1000; 10 for the CIFAR and MNIST ones). */
  standardClasses: number;
  /** Its head's dropout rate; null: the original has none (model.dropout is refused). */
  dropout: number | null;
  /** Takes model.width, a channel multiplier. */
  width: boolean;
  description: string;
}

const IMAGENET: [number, number, number] = [224, 224, 3];

const NET_TABLE = {
  resnet18: {
    build: resnet18,
    input: IMAGENET,
    minSide: 32,
    standardClasses: 1000,
    dropout: null,
    width: false,
    description: "ResNet-18, torchvision's layout",
  },
  resnet34: {
    build: resnet34,
    input: IMAGENET,
    minSide: 32,
    standardClasses: 1000,
    dropout: null,
    width: false,
    description: "ResNet-34, torchvision's layout",
  },
  resnet50: {
    build: resnet50,
    input: IMAGENET,
    minSide: 32,
    standardClasses: 1000,
    dropout: null,
    width: false,
    description: "ResNet-50, torchvision's layout (v1.5: the bottleneck strides on its 3x3)",
  },
  'resnet18-cifar': {
    build: resnet18Cifar,
    input: [32, 32, 3],
    minSide: 8,
    standardClasses: 10,
    dropout: null,
    width: false,
    description: 'ResNet-18 for 32x32 images: 3x3 stem, no max-pool',
  },
  'resnet34-cifar': {
    build: resnet34Cifar,
    input: [32, 32, 3],
    minSide: 8,
    standardClasses: 10,
    dropout: null,
    width: false,
    description: 'ResNet-34 for 32x32 images: 3x3 stem, no max-pool',
  },
  'mobilenet-v2': {
    build: mobilenetV2,
    input: IMAGENET,
    minSide: 32,
    standardClasses: 1000,
    dropout: 0.2,
    width: true,
    description: "MobileNetV2, torchvision's (width 1.0; model.width scales the channels)",
  },
  vgg16: { build: vgg16, input: IMAGENET, minSide: 32, standardClasses: 1000, dropout: 0.5, width: false, description: "VGG-16, torchvision's (no BatchNorm)" },
  'efficientnet-b0': {
    build: efficientnetB0,
    input: IMAGENET,
    minSide: 32,
    standardClasses: 1000,
    dropout: 0.2,
    width: false,
    description: "EfficientNet-B0, torchvision's, squeeze-excite included (no stochastic depth)",
  },
  lenet: {
    build: lenet,
    input: [28, 28, 1],
    minSide: 12,
    standardClasses: 10,
    dropout: null,
    width: false,
    description: 'LeNet-5 (ReLU, max-pool), small, for quick tries',
  },
} as const satisfies Record<NetName, NetTraits>; // every name of net-names.ts, and no other

export { NET_NAMES, type NetName };
export const NETS: Readonly<Record<NetName, NetTraits>> = NET_TABLE;

export const isNetName = (v: unknown): v is NetName => typeof v === 'string' && Object.hasOwn(NET_TABLE, v);

/** The networks by name, in the table's order, with their traits (what `mgpu-train nets` and the benchmark list). */
export function listNets(): { name: NetName; traits: NetTraits }[] {
  return NET_NAMES.map((name) => ({ name, traits: NETS[name] }));
}

/**
 * Builds network `name` with the given `tf` as an ordinary functional LayersModel; options not
 * given take the table's defaults (the standard input and classes, no weight decay, the
 * network's own dropout, width 1). Options are not checked here: the config's checks do that.
 */
export function buildNet(tf: TF, name: NetName, options: Partial<NetOptions> = {}): LayersModel {
  const t = NETS[name];
  return t.build(tf, {
    classes: options.classes ?? t.standardClasses,
    inputShape: options.inputShape ?? [...t.input],
    weightDecay: options.weightDecay ?? 0,
    dropout: options.dropout ?? t.dropout,
    width: options.width ?? 1,
    zeroInit: options.zeroInit ?? false,
  });
}
